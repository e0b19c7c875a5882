package dashboard

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// apiJSON is a form's body as JSON for the API, with text that is not UTF-8
// left as it came. encoding/json would replace each bad byte with U+FFFD and
// the API would store the changed text; sent as it came, the API refuses it
// with the 400 a key's caller gets, and the page shows that (ADR 0027: the
// API's rules, not a copy of them).
func apiJSON(body any) ([]byte, error) { return json.Marshal(keepBytes(body)) }

// keepBytes puts rawText in place of every string that is not UTF-8 in the
// shapes forms build: strings, lists of strings, objects of those.
func keepBytes(v any) any {
	switch v := v.(type) {
	case string:
		if !utf8.ValidString(v) {
			return rawText(v)
		}
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = keepBytes(s)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = keepBytes(x)
		}
		return out
	}
	return v
}

// rawText is a JSON string of its bytes as they are: only the quote, the
// backslash and the control characters escaped, as JSON requires.
type rawText string

func (s rawText) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = fmt.Appendf(out, `\u%04x`, c)
		default:
			out = append(out, c)
		}
	}
	return append(out, '"'), nil
}
