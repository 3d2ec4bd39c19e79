package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// propSchema is the part of a JSON schema property that checkArgTypes
// checks: the JSON type (or several through anyOf), array items, object
// properties and values, and enum.
type propSchema struct {
	Type                 string                `json:"type"`
	AnyOf                []propSchema          `json:"anyOf"`
	Items                *propSchema           `json:"items"`
	Properties           map[string]propSchema `json:"properties"`
	AdditionalProperties json.RawMessage       `json:"additionalProperties"`
	Enum                 []string              `json:"enum"`
}

// checkArgType reports where value (an argument, or a part of one named
// by where) does not have the shape s describes, naming the argument and
// the expected shape: a tool never sees a value its arguments struct
// cannot hold (which Go would report as "json: cannot unmarshal …").
// null stands for a missing argument and is always accepted.
func checkArgType(tool, where string, s propSchema, value json.RawMessage) error {
	value = bytes.TrimSpace(value)
	if string(value) == "null" {
		return nil
	}
	if !fitsShape(s, value) {
		return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: argument %q must be %s, not %s", tool, where, describeShape(s), describeValue(value)), ArgsOf: tool}
	}
	if len(s.Enum) > 0 {
		var str string
		if json.Unmarshal(value, &str) == nil && !slices.Contains(s.Enum, str) {
			return &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: argument %q must be one of %s, not %s", tool, where, strings.Join(s.Enum, ", "), QuoteInput(str))}
		}
	}
	switch {
	case len(s.AnyOf) > 0:
		for _, alt := range s.AnyOf {
			if fitsShape(alt, value) {
				return checkArgType(tool, where, alt, value)
			}
		}
	case s.Type == "array" && s.Items != nil:
		var elems []json.RawMessage
		if json.Unmarshal(value, &elems) == nil {
			for i, e := range elems {
				if err := checkArgType(tool, fmt.Sprintf("%s[%d]", where, i), *s.Items, e); err != nil {
					return err
				}
			}
		}
	case s.Type == "object":
		var obj map[string]json.RawMessage
		if json.Unmarshal(value, &obj) != nil {
			return nil
		}
		var extra *propSchema
		var p propSchema
		if len(s.AdditionalProperties) > 0 && json.Unmarshal(s.AdditionalProperties, &p) == nil {
			extra = &p
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub, ok := s.Properties[k]
			if !ok {
				if extra == nil {
					continue
				}
				sub = *extra
			}
			if err := checkArgType(tool, where+"."+k, sub, obj[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// fitsShape reports whether value's JSON type is one s allows.
func fitsShape(s propSchema, value json.RawMessage) bool {
	if len(s.AnyOf) > 0 {
		for _, alt := range s.AnyOf {
			if fitsShape(alt, value) {
				return true
			}
		}
		return false
	}
	if len(value) == 0 {
		return false
	}
	switch s.Type {
	case "string":
		return value[0] == '"'
	case "boolean":
		return string(value) == "true" || string(value) == "false"
	case "array":
		return value[0] == '['
	case "object":
		return value[0] == '{'
	case "number", "integer":
		var f float64
		if json.Unmarshal(value, &f) != nil {
			return false
		}
		return s.Type == "number" || (f == math.Trunc(f) && math.Abs(f) < 1<<53)
	}
	return true // no type given: anything
}

// describeShape names the shape s describes, for a message.
func describeShape(s propSchema) string {
	if len(s.AnyOf) > 0 {
		parts := make([]string, len(s.AnyOf))
		for i, alt := range s.AnyOf {
			parts[i] = describeShape(alt)
		}
		return strings.Join(parts, " or ")
	}
	switch s.Type {
	case "string":
		if len(s.Enum) > 0 {
			return "one of the strings " + strings.Join(s.Enum, ", ")
		}
		return "a string"
	case "boolean":
		return "true or false"
	case "number":
		return "a number"
	case "integer":
		return "a whole number"
	case "array":
		if s.Items != nil {
			return "an array of " + strings.TrimPrefix(strings.TrimPrefix(describeShape(*s.Items), "a "), "an ") + "s"
		}
		return "an array"
	case "object":
		return "an object"
	}
	return "a JSON value"
}

// describeValue names the JSON type of value, quoting a short one.
func describeValue(value json.RawMessage) string {
	kind := "a number"
	switch value[0] {
	case '"':
		kind = "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 't', 'f':
		kind = "a boolean"
	}
	if len(value) <= 40 {
		return kind + " " + string(value)
	}
	return kind
}
