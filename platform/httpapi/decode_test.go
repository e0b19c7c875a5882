package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"shipd/platform/httpapi"
)

type decodeParcel struct {
	WeightAmount int `json:"weight_amount"`
}

type decodeTarget struct {
	Name    string         `json:"name"`
	Active  bool           `json:"active"`
	Count   int            `json:"count"`
	Parcels []decodeParcel `json:"parcels"`
}

// decodeHandler decodes the body and answers 204, or the error.
var decodeHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	var dst decodeTarget
	if err := httpapi.Decode(r, &dst); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
})

func decode(body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	decodeHandler.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
	return rec
}

func TestDecodeFillsTarget(t *testing.T) {
	var dst decodeTarget
	body := ` {"name":"Main","active":true,"count":3,"parcels":[{"weight_amount":2}]} ` + "\n"
	if err := httpapi.Decode(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), &dst); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	want := decodeTarget{Name: "Main", Active: true, Count: 3, Parcels: []decodeParcel{{WeightAmount: 2}}}
	if !reflect.DeepEqual(dst, want) {
		t.Errorf("decoded %+v, want %+v", dst, want)
	}
}

func TestDecodeRejectsMalformedBodies(t *testing.T) {
	tests := map[string]string{
		"empty":                 "",
		"only whitespace":       " \n\t ",
		"array":                 `[{"name":"x"}]`,
		"string":                `"name"`,
		"number":                `42`,
		"null":                  `null`,
		"unterminated object":   `{"name":"x"`,
		"not JSON":              `{name: x}`,
		"trailing second value": `{"name":"a"} {"name":"b"}`,
		"trailing garbage":      `{"name":"a"} x`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			b := readError(t, decode(body), http.StatusBadRequest)
			if b.Error.Code != "invalid_request" {
				t.Errorf("code = %q", b.Error.Code)
			}
		})
	}
}

// Decode checks that more values follow with json.Decoder.More, which
// reports false before a closing bracket, so a stray ']' or '}' after the
// object is accepted. Fixing it means checking that nothing at all follows
// the object (dec.Token() returning io.EOF).
func TestDecodeRejectsTrailingClosingBracket(t *testing.T) {
	for _, body := range []string{`{"name":"a"}}`, `{"name":"a"}]`} {
		rec := decode(body)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("Decode(%s) answered %d, want 400", body, rec.Code)
		}
	}
}

func TestDecodeWrongTypeNamesField(t *testing.T) {
	tests := []struct {
		body  string
		field string
		msg   string
	}{
		{`{"name":5}`, "name", "must be a string"},
		{`{"active":"yes"}`, "active", "must be a boolean"},
		{`{"count":"3"}`, "count", "must be an integer"},
		{`{"count":1.5}`, "count", "must be an integer"},
		{`{"parcels":{}}`, "parcels", "must be an array"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			b := readError(t, decode(tt.body), http.StatusUnprocessableEntity)
			want := map[string][]string{tt.field: {tt.msg}}
			if !reflect.DeepEqual(b.Errors, want) {
				t.Errorf("errors = %v, want %v", b.Errors, want)
			}
		})
	}
}

func TestDecodeBodyLimit(t *testing.T) {
	h := httpapi.WithBodyLimit(decodeHandler)
	big := `{"name":"` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}`

	t.Run("declared length", func(t *testing.T) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(big)))
		readError(t, rec, http.StatusBadRequest)
	})
	t.Run("unknown length", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(strings.NewReader(big)))
		req.ContentLength = -1 // chunked: only reading finds out
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		b := readError(t, rec, http.StatusBadRequest)
		if !strings.Contains(b.Message, "larger than") {
			t.Errorf("message = %q, want it to say the body is too large", b.Message)
		}
	})
	t.Run("just under the limit", func(t *testing.T) {
		fits := `{"name":"` + strings.Repeat("x", httpapi.MaxBodyBytes-len(`{"name":""}`)) + `"}`
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(fits)))
		if rec.Code != http.StatusNoContent {
			t.Errorf("a body of exactly %d bytes answered %d: %s", len(fits), rec.Code, rec.Body)
		}
	})
}

// encoding/json reads bytes that are not UTF-8, and escapes of half a
// surrogate pair, as U+FFFD: the body would be stored changed. Every such
// string, in a known field, an unknown one, a key or an array, is a 400
// that says what and where; a field of the wrong type in the same body does
// not turn it into a 422.
func TestDecodeRefusesTextItCannotKeep(t *testing.T) {
	tests := []struct {
		name, body, says string
	}{
		{"lone byte", "{\"name\":\"Nov\xe1k\"}", "not valid UTF-8 (byte 12)"},
		{"truncated sequence", "{\"name\":\"a\xc3\"}", "not valid UTF-8 (byte 10)"},
		{"overlong slash", "{\"name\":\"\xc0\xaf\"}", "not valid UTF-8"},
		{"surrogate in UTF-8", "{\"name\":\"\xed\xa0\x80\"}", "not valid UTF-8"},
		{"beyond U+10FFFF", "{\"name\":\"\xf4\x90\x80\x80\"}", "not valid UTF-8"},
		{"in an unknown field", "{\"name\":\"ok\",\"note\":\"\xff\"}", "not valid UTF-8"},
		{"in a key", "{\"\xff\":1}", "not valid UTF-8"},
		{"in an array", "{\"parcels\":[{\"weight_amount\":1}],\"tags\":[\"a\",\"\xfe\"]}", "not valid UTF-8"},
		{"beside a wrong type", "{\"count\":\"x\",\"name\":\"\xff\"}", "not valid UTF-8"},
		{"lone high surrogate", `{"name":"a\ud800b"}`, `\ud800 is half of a UTF-16 surrogate pair`},
		{"lone low surrogate", `{"name":"\uDC00"}`, `\uDC00 is half`},
		{"high surrogate at the end", `{"name":"a\ud83d"}`, `\ud83d is half`},
		{"two highs", `{"name":"\ud83d\ud83d"}`, `\ud83d is half`},
		{"reversed pair", `{"name":"\ude00\ud83d"}`, `\ude00 is half`},
		{"surrogate in a key", `{"\ud800":1}`, `\ud800 is half`},
		{"NUL", `{"name":"a\u0000b"}`, "U+0000"},
		{"NUL in a key", `{"parcels":[{"\u0000":1}]}`, "U+0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := readError(t, decode(tt.body), http.StatusBadRequest)
			if b.Error.Code != "invalid_request" || !strings.Contains(b.Message, tt.says) {
				t.Errorf("code %q, message %q; want invalid_request saying %q", b.Error.Code, b.Message, tt.says)
			}
		})
	}
}

// What is text stays accepted, and reads as written.
func TestDecodeKeepsText(t *testing.T) {
	for body, want := range map[string]string{
		`{"name":"Nov\u00e1kov\u00e1"}`:     "Nováková",
		`{"name":"Novákova 😀"}`:             "Novákova 😀",
		`{"name":"\ud83d\ude00"}`:           "😀",
		`{"name":"\uD83D\uDE00!"}`:          "😀!",
		`{"name":"\ufffd is U+FFFD"}`:       "\ufffd is U+FFFD",
		`{"name":"` + "\ufffd" + `"}`:       "\ufffd",
		`{"name":"\\ud800 is not escaped"}`: `\ud800 is not escaped`,
		`{"name":"\\u0000"}`:                `\u0000`,
		`{"name":"a\"\\\/\b\f\n\r\t"}`:      "a\"\\/\b\f\n\r\t",
	} {
		var dst decodeTarget
		if err := httpapi.Decode(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), &dst); err != nil || dst.Name != want {
			t.Errorf("Decode(%s) = %q, %v; want %q", body, dst.Name, err, want)
		}
	}
}
