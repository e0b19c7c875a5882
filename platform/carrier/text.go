package carrier

import (
	"strconv"
	"unicode"
)

// The character rules of a client's text (issue 31). Text is stored, shown
// in the dashboard, printed on labels and sent to carriers as written, so a
// line break or control character in it splits a carrier's record or a log
// line, and an invisible character in a name or reference makes two that
// look alike differ (a bidi override shows "txt.exe" as "exe.txt").

// TextProblem says what is wrong with free text (a description, a street),
// or "": no control characters, C0, DEL and C1, line breaks (CR, LF and
// U+2028/U+2029) included.
func TextProblem(s string) string {
	for _, r := range s {
		if isControl(r) {
			return "must not contain control characters or line breaks (found " + strconv.QuoteRuneToASCII(r) + ")"
		}
	}
	return ""
}

// NameProblem says what is wrong with an identifier, a reference or a name,
// or "": what TextProblem refuses, and invisible formatting characters
// (Unicode's Cf: bidi overrides and marks such as U+202E, zero-width
// characters such as U+200B and U+FEFF, the soft hyphen).
func NameProblem(s string) string {
	for _, r := range s {
		if isControl(r) {
			return "must not contain control characters or line breaks (found " + strconv.QuoteRuneToASCII(r) + ")"
		}
		if unicode.Is(unicode.Cf, r) {
			return "must not contain invisible formatting characters such as bidi overrides or zero-width characters (found " + strconv.QuoteRuneToASCII(r) + ")"
		}
	}
	return ""
}

func isControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
