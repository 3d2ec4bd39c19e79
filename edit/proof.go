package edit

import (
	"strconv"
	"strings"
)

// maxProofBytes bounds the files the parse proof looks at: past it the
// repairs keep their heuristic behaviour and no syntax warning is given.
const maxProofBytes = 4 << 20

// maxProofHunks bounds how many repairing hunks are weighed one by one;
// beyond it a declined set of repairs is declined as a whole.
const maxProofHunks = 6

// syntaxErrs parses text with c; ok is false when the language is not
// parsed (or the text is too big to bother).
func syntaxErrs(c SyntaxChecker, path string, d *doc) ([]LineRange, bool) {
	if c == nil || len(d.b) > maxProofBytes {
		return nil, false
	}
	if k, ok := c.(LanguageKnower); ok && !k.Parses(path) {
		return nil, false // no text is built for a language that is not parsed
	}
	return c.SyntaxErrors(path, d.lfString())
}

// applyProven applies block-free hunks like applyPlain, but keeps an
// auto-repair (boundary echo, delimiter balance, landing shift) only when
// the parser agrees: the repaired result must not have more syntax errors
// than the edit as written. A declined repair leaves its hunk as written
// and adds a warning saying which repair was declined and why. Without a
// checker, or for a language it does not parse, repairs stay heuristic.
func applyProven(d *doc, hunks []Hunk, path string, c SyntaxChecker) (*applied, *Error) {
	a, err := applyPlain(d, hunks)
	if err != nil || c == nil || len(a.repairs) == 0 {
		return a, err
	}
	errsOf := func(x *applied) (int, bool) {
		es, ok := syntaxErrs(c, path, newDoc(x.out))
		return len(es), ok
	}
	nRepaired, ok := errsOf(a)
	if !ok {
		return a, nil
	}
	idx := make([]int, 0, len(a.repairs))
	for i := range hunks {
		if _, ok := a.repairs[i]; ok {
			idx = append(idx, i)
		}
	}
	with := func(on map[int]bool) []Hunk {
		hs := append([]Hunk(nil), hunks...)
		for _, i := range idx {
			if !on[i] {
				hs[i].noRepair = true
			}
		}
		return hs
	}
	asWritten, err := applyPlain(d, with(nil))
	if err != nil {
		return a, nil // the edit as written does not even apply: keep the repair
	}
	nWritten, _ := errsOf(asWritten)
	if nRepaired <= nWritten {
		return a, nil // the repairs are proven no worse
	}
	// Weigh each repairing hunk on its own, on top of the accepted ones.
	on := map[int]bool{}
	best, nBest := asWritten, nWritten
	if len(idx) > 1 && len(idx) <= maxProofHunks {
		for _, i := range idx {
			on[i] = true
			x, err := applyPlain(d, with(on))
			if err != nil {
				on[i] = false
				continue
			}
			if n, _ := errsOf(x); n <= nBest {
				best, nBest = x, n
				continue
			}
			on[i] = false
		}
	}
	var declined []string
	for _, i := range idx {
		if on[i] {
			continue
		}
		h := hunks[i]
		declined = append(declined, declinedWarning(h, repairNames(a.repairs[i]),
			"the file parses with "+errCount(nWritten)+" as you wrote it and with "+errCount(nRepaired)+" repaired"))
	}
	best.warnings = append(best.warnings, declined...)
	return best, nil
}

// declinedWarning is the warning for a repair of h that was declined, and
// why: the hunk lands exactly as written.
func declinedWarning(h Hunk, repair, why string) string {
	return "Declined the auto-repair (" + repair + ") of `" + h.Written() + "` at line " + strconv.Itoa(h.Line) + ": " + why +
		", so the hunk was applied exactly as written. Check the result."
}

func errCount(n int) string {
	if n == 1 {
		return "1 syntax error"
	}
	return strconv.Itoa(n) + " syntax errors"
}

// syntaxWarning returns a warning naming syntax errors in or next to the
// changed lines of nd that old did not have there, or "".
func syntaxWarning(c SyntaxChecker, path string, old, nd *doc, ch []change) string {
	if c == nil || len(ch) == 0 {
		return ""
	}
	newErrs, ok := syntaxErrs(c, path, nd)
	if !ok || len(newErrs) == 0 {
		return ""
	}
	near := func(errs []LineRange, spans []LineRange) []LineRange {
		var out []LineRange
		for _, e := range errs {
			for _, s := range spans {
				if e.Start <= s.End+1 && e.End >= s.Start-1 {
					out = append(out, e)
					break
				}
			}
		}
		return out
	}
	var newSpans, oldSpans []LineRange
	for _, c := range ch {
		// 1-based; a pure deletion or insertion still has a place.
		newSpans = append(newSpans, LineRange{c.n + 1, max(c.n+c.nl, c.n+1)})
		oldSpans = append(oldSpans, LineRange{c.o + 1, max(c.o+c.ol, c.o+1)})
	}
	fresh := near(newErrs, newSpans)
	if len(fresh) == 0 {
		return ""
	}
	if oldErrs, ok := syntaxErrs(c, path, old); ok && len(near(oldErrs, oldSpans)) >= len(fresh) {
		return ""
	}
	return "The edited file has syntax errors at " + rangesText(fresh) + ", in or next to the lines this edit changed, which it did not have before. " +
		"If this edit is one step of a larger change, carry on; otherwise read those lines and fix them."
}

// rangesText renders spans as "line 4" / "lines 4, 7-9".
func rangesText(rs []LineRange) string {
	rs = mergeRanges(rs)
	parts := make([]string, 0, len(rs))
	n := 0
	for _, r := range rs {
		n += r.End - r.Start + 1
		if r.Start == r.End {
			parts = append(parts, strconv.Itoa(r.Start))
		} else {
			parts = append(parts, strconv.Itoa(r.Start)+"-"+strconv.Itoa(r.End))
		}
	}
	if n == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}
