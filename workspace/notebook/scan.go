package notebook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A notebook is read in one pass over its bytes, from a slice (Parse) or a
// stream (ParseReader), by a JSON scanner that keeps only what the cell
// text needs (each cell's type, source and id, the cells array's layout)
// and checks the rest without holding it: a cell's outputs (a plot, a 200
// MB log) are counted and measured, never copied, so reading a notebook
// costs its cell text, not its outputs.

// maxDepth bounds the nesting of a notebook's JSON (encoding/json's limit).
const maxDepth = 10000

// scanner reads JSON values from r, counting the bytes it consumed (off).
// keep, when not nil, receives the bytes of the value being kept.
type scanner struct {
	r    *bufio.Reader
	off  int64
	keep *bytes.Buffer
}

var errSyntax = errors.New("the file is not valid JSON")

func (s *scanner) syntax(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errSyntax, what, s.off)
}

func (s *scanner) next() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		if err == io.EOF {
			return 0, s.syntax("unexpected end")
		}
		return 0, err
	}
	s.off++
	if s.keep != nil {
		s.keep.WriteByte(c)
	}
	return c, nil
}

// peek returns the next byte after white space (skipped; kept inside a
// kept value).
func (s *scanner) peek() (byte, error) {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			if err == io.EOF {
				return 0, s.syntax("unexpected end")
			}
			return 0, err
		}
		switch c := b[0]; c {
		case ' ', '\t', '\n', '\r':
			s.r.ReadByte()
			s.off++
			if s.keep != nil { // inside a kept value: its bytes as they are
				s.keep.WriteByte(c)
			}
		default:
			return c, nil
		}
	}
}

func (s *scanner) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.syntax(fmt.Sprintf("%q where %q belongs", got, c))
	}
	_, err = s.next()
	return err
}

// value scans one value (validating it), after white space.
func (s *scanner) value(depth int) error {
	if depth > maxDepth {
		return s.syntax("nesting too deep")
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		s.next()
		if c, err := s.peek(); err != nil {
			return err
		} else if c == '}' {
			s.next()
			return nil
		}
		for {
			if c, err := s.peek(); err != nil {
				return err
			} else if c != '"' {
				return s.syntax("an object key that is not a string")
			}
			if err := s.str(); err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := s.value(depth + 1); err != nil {
				return err
			}
			if done, err := s.more('}'); err != nil || done {
				return err
			}
		}
	case c == '[':
		s.next()
		if c, err := s.peek(); err != nil {
			return err
		} else if c == ']' {
			s.next()
			return nil
		}
		for {
			if err := s.value(depth + 1); err != nil {
				return err
			}
			if done, err := s.more(']'); err != nil || done {
				return err
			}
		}
	case c == '"':
		return s.str()
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.syntax(fmt.Sprintf("%q where a value belongs", c))
}

// more reads the ',' between items or the closing byte; done reports the
// closing one.
func (s *scanner) more(closing byte) (done bool, err error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	s.next()
	switch c {
	case ',':
		return false, nil
	case closing:
		return true, nil
	}
	return false, s.syntax(fmt.Sprintf("%q where ',' or %q belongs", c, closing))
}

func (s *scanner) literal(w string) error {
	for i := 0; i < len(w); i++ {
		c, err := s.next()
		if err != nil {
			return err
		}
		if c != w[i] {
			return s.syntax("an unknown literal")
		}
	}
	return nil
}

// str scans a string (the opening '"' is next), checking its escapes and
// that it holds no control character.
func (s *scanner) str() error {
	s.next()
	for {
		// Fast path: a run of plain bytes.
		if s.keep == nil {
			if b, _ := s.r.Peek(s.r.Buffered()); len(b) > 0 {
				i := 0
				for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
					i++
				}
				if i > 0 {
					s.r.Discard(i)
					s.off += int64(i)
					continue
				}
			}
		}
		c, err := s.next()
		if err != nil {
			return err
		}
		switch {
		case c == '"':
			return nil
		case c < 0x20:
			return s.syntax("a control character in a string")
		case c == '\\':
			e, err := s.next()
			if err != nil {
				return err
			}
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					h, err := s.next()
					if err != nil {
						return err
					}
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return s.syntax("a \\u escape without 4 hex digits")
					}
				}
			default:
				return s.syntax(fmt.Sprintf("the escape \\%c", e))
			}
		}
	}
}

// number scans a number as JSON writes them.
func (s *scanner) number() error {
	digits := func() (int, error) {
		n := 0
		for {
			b, err := s.r.Peek(1)
			if err != nil || b[0] < '0' || b[0] > '9' {
				return n, nil
			}
			s.next()
			n++
		}
	}
	if b, _ := s.r.Peek(1); len(b) == 1 && b[0] == '-' {
		s.next()
	}
	b, err := s.r.Peek(1)
	if err != nil {
		return s.syntax("a number without digits")
	}
	if b[0] == '0' {
		s.next()
	} else if n, _ := digits(); n == 0 {
		return s.syntax("a number without digits")
	}
	if b, _ := s.r.Peek(1); len(b) == 1 && b[0] == '.' {
		s.next()
		if n, _ := digits(); n == 0 {
			return s.syntax("a number without digits after '.'")
		}
	}
	if b, _ := s.r.Peek(1); len(b) == 1 && (b[0] == 'e' || b[0] == 'E') {
		s.next()
		if b, _ := s.r.Peek(1); len(b) == 1 && (b[0] == '+' || b[0] == '-') {
			s.next()
		}
		if n, _ := digits(); n == 0 {
			return s.syntax("a number without an exponent")
		}
	}
	return nil
}

// kept scans one value (after white space) and returns its bytes.
func (s *scanner) kept() ([]byte, error) {
	if _, err := s.peek(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	s.keep = &buf
	err := s.value(1)
	s.keep = nil
	return buf.Bytes(), err
}

// key scans an object key and its ':'.
func (s *scanner) key() (string, error) {
	if c, err := s.peek(); err != nil {
		return "", err
	} else if c != '"' {
		return "", s.syntax("an object key that is not a string")
	}
	raw, err := s.kept()
	if err != nil {
		return "", err
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", s.syntax("a key that does not decode")
	}
	return k, s.expect(':')
}

// scan reads a notebook: the cells (with their outputs counted, not
// kept), where they are in its bytes, and whether they carry ids.
func scan(r io.Reader) (*Notebook, error) {
	s := &scanner{r: bufio.NewReaderSize(r, 64<<10)}
	nb := &Notebook{arrStart: -1}
	if c, err := s.peek(); err != nil || c != '{' {
		if err != nil && !errors.Is(err, errSyntax) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: the top level is not a JSON object", ErrShape)
	}
	s.next()
	for first := true; ; first = false {
		c, err := s.peek()
		if err != nil {
			return nil, shapeErr(err)
		}
		if first && c == '}' {
			s.next()
			break
		}
		key, err := s.key()
		if err != nil {
			return nil, shapeErr(err)
		}
		switch key {
		case "nbformat_minor":
			raw, err := s.kept()
			if err != nil {
				return nil, shapeErr(err)
			}
			var minor json.Number
			if json.Unmarshal(raw, &minor) == nil {
				if v, err := minor.Int64(); err == nil && v >= 5 {
					nb.ids = true // nbformat 4.5 requires cell ids
				}
			}
		case "cells":
			if nb.arrStart >= 0 {
				return nil, fmt.Errorf("%w: \"cells\" appears twice", ErrShape)
			}
			if err := nb.scanCells(s); err != nil {
				return nil, err
			}
		default:
			if err := s.value(1); err != nil {
				return nil, shapeErr(err)
			}
		}
		if done, err := s.more('}'); err != nil {
			return nil, shapeErr(err)
		} else if done {
			break
		}
	}
	// Nothing but white space may follow.
	for {
		b, err := s.r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s.off++
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return nil, fmt.Errorf("%w: the file is not valid JSON: data after the top-level value", ErrShape)
		}
	}
	if nb.arrStart < 0 {
		return nil, fmt.Errorf("%w: there is no \"cells\" array", ErrShape)
	}
	nb.size = s.off
	return nb, nil
}

func shapeErr(err error) error {
	if errors.Is(err, errSyntax) {
		return fmt.Errorf("%w: %v", ErrShape, err)
	}
	return err
}

// scanCells reads the cells array.
func (nb *Notebook) scanCells(s *scanner) error {
	if c, err := s.peek(); err != nil || c != '[' {
		if err != nil {
			return shapeErr(err)
		}
		return fmt.Errorf("%w: \"cells\" is not an array", ErrShape)
	}
	nb.arrStart = s.off
	s.next()
	for first := true; ; first = false {
		c, err := s.peek()
		if err != nil {
			return shapeErr(err)
		}
		if first && c == ']' {
			s.next()
			break
		}
		if c != '{' {
			return fmt.Errorf("%w: cell %d: not an object with cell_type and source", ErrShape, len(nb.Cells))
		}
		cell, err := scanCell(s)
		if err != nil {
			if errors.Is(err, errSyntax) {
				return fmt.Errorf("%w: cell %d: %v", ErrShape, len(nb.Cells), err)
			}
			if errors.Is(err, errCell) {
				return fmt.Errorf("%w: cell %d: %v", ErrShape, len(nb.Cells), errors.Unwrap(err))
			}
			return err
		}
		nb.Cells = append(nb.Cells, cell)
		nb.ids = nb.ids || cell.hasID
		if done, err := s.more(']'); err != nil {
			return shapeErr(err)
		} else if done {
			break
		}
	}
	nb.arrEnd = s.off
	return nil
}

var errCell = errors.New("cell")

func cellErr(format string, args ...any) error {
	return fmt.Errorf("%w%w", errCell, fmt.Errorf(format, args...))
}

// scanCell reads one cell object. Keys are matched exactly, as nbformat's
// are (encoding/json would match "Cell_Type" to cell_type).
func scanCell(s *scanner) (Cell, error) {
	cell := Cell{start: s.off}
	s.next() // '{'
	var (
		haveType           bool
		rawType, rawSource []byte
	)
	for first := true; ; first = false {
		c, err := s.peek()
		if err != nil {
			return cell, err
		}
		if first && c == '}' {
			s.next()
			break
		}
		key, err := s.key()
		if err != nil {
			return cell, err
		}
		switch key {
		case "cell_type":
			if rawType, err = s.kept(); err != nil {
				return cell, err
			}
			haveType = true
		case "source":
			if _, err := s.peek(); err != nil {
				return cell, err
			}
			cell.srcStart = s.off
			if rawSource, err = s.kept(); err != nil {
				return cell, err
			}
			cell.srcEnd, cell.srcRaw = s.off, rawSource
		case "outputs":
			if cell.Outputs, cell.OutputBytes, err = scanOutputs(s); err != nil {
				return cell, err
			}
		case "id":
			raw, err := s.kept()
			if err != nil {
				return cell, err
			}
			var id string
			cell.hasID = string(raw) != "null" && json.Unmarshal(raw, &id) == nil
		default:
			if err := s.value(1); err != nil {
				return cell, err
			}
		}
		if done, err := s.more('}'); err != nil {
			return cell, err
		} else if done {
			break
		}
	}
	cell.end = s.off
	return cell, finishCell(&cell, haveType, rawType, rawSource)
}

// scanOutputs skips a cell's outputs list, counting its outputs and
// bytes; anything but a list is an error.
func scanOutputs(s *scanner) (n int, size int64, err error) {
	c, err := s.peek()
	if err != nil {
		return 0, 0, err
	}
	if c != '[' {
		if err := s.value(1); err != nil {
			return 0, 0, err
		}
		return 0, 0, cellErr("outputs is not a list")
	}
	start := s.off
	s.next()
	if c, err := s.peek(); err != nil {
		return 0, 0, err
	} else if c == ']' {
		s.next()
		return 0, s.off - start, nil
	}
	for {
		if err := s.value(2); err != nil {
			return 0, 0, err
		}
		n++
		if done, err := s.more(']'); err != nil {
			return 0, 0, err
		} else if done {
			return n, s.off - start, nil
		}
	}
}

// finishCell checks a scanned cell's type (rawType, when it had one) and
// reads its source (rawSource) into cell.
func finishCell(cell *Cell, haveType bool, rawType, rawSource []byte) error {
	if !haveType || json.Unmarshal(rawType, &cell.Type) != nil {
		return cellErr("the cell has no string cell_type")
	}
	switch cell.Type {
	case "code", "markdown", "raw":
	default:
		return cellErr("cell_type %q is not code, markdown or raw", cell.Type)
	}
	src, err := sourceText(rawSource)
	if err != nil {
		return cellErr("%v", err)
	}
	cell.Source = src
	return nil
}
