package idempotency

import "testing"

func TestCanonicalJSON(t *testing.T) {
	same := []struct{ name, a, b string }{
		{"whitespace", `{"a":1,"b":[1,2]}`, " {\n\t\"a\" : 1 ,\r\n \"b\": [ 1 , 2 ] }\n"},
		{"member order", `{"a":1,"b":{"x":true,"y":null}}`, `{"b":{"y":null,"x":true},"a":1}`},
		{"string escapes", `{"name":"Nováková \"J\""}`, `{"name":"Nov\u00e1kov\u00e1 \u0022J\u0022"}`},
		{"nested arrays of objects", `[{"b":2,"a":1},[]]`, `[ {"a":1, "b":2}, [ ] ]`},
	}
	for _, c := range same {
		ca, okA := canonicalJSON([]byte(c.a))
		cb, okB := canonicalJSON([]byte(c.b))
		if !okA || !okB || string(ca) != string(cb) {
			t.Errorf("%s: %q (%v) and %q (%v) differ", c.name, ca, okA, cb, okB)
		}
	}
	differ := []struct{ name, a, b string }{
		{"value", `{"a":1}`, `{"a":2}`},
		{"number text", `{"a":1}`, `{"a":1.0}`},
		{"array order", `[1,2]`, `[2,1]`},
		{"string case", `{"a":"x"}`, `{"a":"X"}`},
		{"null and absent", `{"a":null}`, `{}`},
		{"member name", `{"a":1}`, `{"A":1}`},
	}
	for _, c := range differ {
		ca, _ := canonicalJSON([]byte(c.a))
		cb, _ := canonicalJSON([]byte(c.b))
		if string(ca) == string(cb) {
			t.Errorf("%s: %s and %s compare equal as %s", c.name, c.a, c.b, ca)
		}
	}
	for name, body := range map[string]string{
		"empty":            ``,
		"not json":         `name=x`,
		"duplicate member": `{"a":1,"a":2}`,
		"nested duplicate": `{"x":{"a":1,"b":2,"a":1}}`,
		"trailing data":    `{"a":1} {"a":2}`,
		"invalid utf-8":    "{\"a\":\"\xff\"}",
		"unterminated":     `{"a":[1,2}`,
	} {
		if got, ok := canonicalJSON([]byte(body)); ok {
			t.Errorf("%s: %q canonicalised to %q; want it compared byte for byte", name, body, got)
		}
	}
}
