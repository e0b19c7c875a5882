package adapters

import (
	"encoding/json"
	"strings"

	"shipd/modules/webhooks/domain"
)

// headersJSON is the JSON object a log keeps of an attempt's headers, in
// the order they were sent. Written here rather than by json.Marshal of a
// map, which sorts keys through reflection on every attempt: a delivery
// worker logs thousands a second.
func headersJSON(headers []domain.Header) string {
	var b strings.Builder
	b.Grow(64 * len(headers))
	b.WriteByte('{')
	for i, h := range headers {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, h.Name)
		b.WriteByte(':')
		writeJSONString(&b, h.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// writeJSONString writes s as a JSON string: as it is, quoted, when it is
// printable ASCII without a quote or backslash (every header shipd sends),
// else as encoding/json writes it.
func writeJSONString(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			quoted, _ := json.Marshal(s) // a string always marshals
			b.Write(quoted)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}
