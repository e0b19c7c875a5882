package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"reflect"
	"strings"
	"time"
)

// templateFuncs are the helpers every page template may use.
var templateFuncs = template.FuncMap{
	// when shows an RFC 3339 time or a time.Time as "2006-01-02 15:04 UTC".
	"when": func(v any) string {
		switch t := v.(type) {
		case time.Time:
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		case *time.Time:
			if t == nil {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		case string:
			if parsed, err := time.Parse(time.RFC3339Nano, t); err == nil {
				return parsed.UTC().Format("2006-01-02 15:04:05 UTC")
			}
			return t
		}
		return ""
	},
	// money shows an amount with its currency: "1250.50 CZK".
	"money": money,
	// join shows any slice's items, separated by sep.
	"join": func(sep string, items any) string {
		v := reflect.ValueOf(items)
		if v.Kind() != reflect.Slice {
			return ""
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return strings.Join(parts, sep)
	},
	// pretty shows JSON indented, its keys in the order sent (a webhook body
	// is shown as it was signed), and anything else as it is.
	"pretty": func(raw any) string {
		var b []byte
		switch v := raw.(type) {
		case string:
			b = []byte(v)
		case []byte:
			b = v
		case json.RawMessage:
			b = v
		default:
			out, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return ""
			}
			return string(out)
		}
		var out bytes.Buffer
		if json.Indent(&out, b, "", "  ") != nil {
			return string(b)
		}
		return out.String()
	},
	"query": func(pairs ...string) string {
		q := url.Values{}
		for i := 0; i+1 < len(pairs); i += 2 {
			if pairs[i+1] != "" {
				q.Set(pairs[i], pairs[i+1])
			}
		}
		return q.Encode()
	},
}
