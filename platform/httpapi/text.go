package httpapi

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A request body's strings are stored as the client wrote them, so Decode
// refuses what cannot be kept as written, instead of letting encoding/json
// change it without a word: bytes that are not UTF-8 and \u escapes of half
// a UTF-16 surrogate pair both become U+FFFD, and U+0000 is refused by
// PostgreSQL's text and jsonb.

// encodingProblem says why body is not UTF-8 text, or "". Outside strings
// JSON is ASCII, so the whole body is checked: a stray byte elsewhere is a
// syntax error either way.
func encodingProblem(body []byte) string {
	if utf8.Valid(body) {
		return ""
	}
	at := 0
	for at < len(body) {
		r, n := utf8.DecodeRune(body[at:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		at += n
	}
	return fmt.Sprintf("The request body is not valid UTF-8 (byte %d): JSON text must be UTF-8.", at)
}

// escapeProblem says which \u escape of the valid JSON body stands for text
// that cannot be stored, or "". In valid JSON every backslash begins an
// escape inside a string, so the scan need not track where strings are.
func escapeProblem(body []byte) string {
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if body[i+1] != 'u' {
			i++ // \" \\ \/ \b \f \n \r \t: skip the escaped character
			continue
		}
		r := hex4(body[i+2 : i+6])
		switch {
		case r == 0:
			return `The request body must not contain the character U+0000 ("\u0000").`
		case utf16.IsSurrogate(r):
			if i+12 <= len(body) && body[i+6] == '\\' && body[i+7] == 'u' &&
				utf16.DecodeRune(r, hex4(body[i+8:i+12])) != utf8.RuneError {
				i += 11 // a whole pair: one character beyond U+FFFF
				continue
			}
			return "The request body must be Unicode text: the escape " + string(body[i:i+6]) +
				" is half of a UTF-16 surrogate pair without the other half."
		}
		i += 5
	}
	return ""
}

// hex4 reads the four hex digits of a \u escape, which valid JSON has.
func hex4(digits []byte) rune {
	n, err := strconv.ParseUint(string(digits), 16, 32)
	if err != nil {
		return utf8.RuneError
	}
	return rune(n)
}
