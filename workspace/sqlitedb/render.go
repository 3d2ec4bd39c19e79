package sqlitedb

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashls/hashls/internal/names"
)

// FormatValue renders one SQLite value for a table cell: NULL, numbers,
// text with control characters escaped, and blobs as <blob N bytes> (or
// their text when they are short valid UTF-8).
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case string:
		return escapeText(x)
	case []byte:
		if utf8.Valid(x) && len(x) <= 256 && !strings.ContainsRune(string(x), 0) {
			return escapeText(string(x))
		}
		return fmt.Sprintf("<blob %d bytes>", len(x))
	case time.Time:
		return x.Format(time.RFC3339Nano)
	default:
		return escapeText(fmt.Sprint(x))
	}
}

func escapeText(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !hasControl(s) {
		return s
	}
	return names.EscapeControls(s)
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// truncate shortens s to at most w runes, ending in "…" when cut.
func truncate(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	n := 0
	for i := range s {
		if n == w-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// RenderTable renders rows as an ASCII table no wider than MaxWidth, with
// every column at most MaxColumn wide (cells are cut with "…"). When the
// columns cannot fit even at the minimum width the trailing ones are left
// out and a note says so.
func RenderTable(cols []string, rows [][]string) string {
	const minCol = 4
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = min(utf8.RuneCountInString(c), MaxColumn)
	}
	for _, r := range rows {
		for i := range cols {
			if i < len(r) {
				widths[i] = max(widths[i], min(utf8.RuneCountInString(r[i]), MaxColumn))
			}
		}
	}
	for i := range widths {
		widths[i] = max(widths[i], 1)
	}
	total := func(ws []int) int {
		t := 1
		for _, w := range ws {
			t += w + 3
		}
		return t
	}
	for total(widths) > MaxWidth {
		wi := 0
		for i, w := range widths {
			if w > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= minCol {
			break
		}
		widths[wi]--
	}
	shown := len(cols)
	for shown > 1 && total(widths[:shown]) > MaxWidth {
		shown--
	}
	widths = widths[:shown]
	var b strings.Builder
	sep := func() {
		b.WriteByte('+')
		for _, w := range widths {
			b.WriteString(strings.Repeat("-", w+2))
			b.WriteByte('+')
		}
		b.WriteByte('\n')
	}
	line := func(cells []string) {
		b.WriteByte('|')
		for i, w := range widths {
			c := ""
			if i < len(cells) {
				c = truncate(cells[i], w)
			}
			b.WriteByte(' ')
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", w-utf8.RuneCountInString(c)))
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	sep()
	line(cols)
	sep()
	for _, r := range rows {
		line(r)
	}
	if len(rows) > 0 {
		sep()
	}
	if shown < len(cols) {
		fmt.Fprintf(&b, "[%d more column%s not shown (%s); select fewer columns with ?q=SELECT col1, col2 FROM …]\n",
			len(cols)-shown, plural(len(cols)-shown), strings.Join(cols[shown:], ", "))
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
