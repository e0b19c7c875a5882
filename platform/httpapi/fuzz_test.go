package httpapi_test

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// Every request body of the API goes through Decode: whatever arrives, the
// answer is a 400 or a 422 naming a field, what it accepts is exactly what
// encoding/json reads from the same bytes and has no member the target has
// no field for, and every such member of an object is named in the 422.
func FuzzDecode(f *testing.F) {
	for _, body := range []string{
		` {"name":"Main","active":true,"count":3,"parcels":[{"weight_amount":2}],"unknown":1} ` + "\n",
		`{"name":"Nov\u00e1kov\u00e1","parcels":[]}`, `{}`, ``, " \n\t ", `[{"name":"x"}]`, `"name"`, `42`, `null`,
		`{"name":"x"`, `{name: x}`, `{"name":"a"} {"name":"b"}`, `{"name":"a"} x`, `{"name":"a"}}`, `{"name":"a"}]`,
		`{"name":5}`, `{"active":"yes"}`, `{"count":"3"}`, `{"count":1.5}`, `{"count":1e400}`, `{"parcels":{}}`,
		`{"parcels":[{"weight_amount":"2"}]}`, "{\"name\":\"\xff\xfe\"}", `{"name":"\ud800"}`,
		`{"name":"a\u0000b"}`, `{"parcels":[{"\u0000":1}]}`, `{"name":"a\\u0000b"}`, // PostgreSQL stores no U+0000
		// Not text: encoding/json would read U+FFFD.
		"{\"name\":\"a\xc3\"}", "{\"\xff\":1}", "{\"note\":\"\xed\xa0\x80\"}", "{\"count\":\"x\",\"name\":\"\xc0\xaf\"}",
		`{"name":"\udc00"}`, `{"name":"\ud83d\ud83d"}`, `{"name":"\ude00\ud83d"}`, `{"name":"a\ud83d"}`,
		`{"name":"\ud83d\ude00"}`, `{"name":"\\ud800"}`, `{"name":"\ufffd"}`, "{\"name\":\"\xef\xbf\xbd\"}",
		// Members the target has no field for, at every depth; and names
		// encoding/json would take in another case.
		`{"name":"x","unknown":1}`, `{"Name":"x"}`, `{"parcels":[{"weight_amount":1},{"weigth_amount":2,"colour":"red"}]}`,
		`{"nmae":"x","count":"3"}`, `{"parcels":[{"weight_amount":{"kg":1}}],"":1}`, `{"name.x":1,"parcels":[[{"a":1}]]}`,
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got decodeTarget
		err := httpapi.Decode(httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)), &got)
		if err == nil {
			var want decodeTarget
			if uerr := json.Unmarshal(body, &want); uerr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Decode accepted %q as %+v; encoding/json reads %+v (%v)", body, got, want, uerr)
			}
			if trimmed := bytes.Trim(body, " \t\r\n"); trimmed[0] != '{' {
				t.Fatalf("Decode accepted %q, which is not an object", body)
			}
			if !utf8.Valid(body) {
				t.Fatalf("Decode accepted %q, which is not UTF-8", body)
			}
			if unknown := unknownDecodeMembers(body); len(unknown) > 0 {
				t.Fatalf("Decode accepted %q, which has the unknown members %v", body, unknown)
			}
			// U+FFFD only where the client wrote it: as itself or as \ufffd.
			wroteFFFD := bytes.Contains(body, []byte("\ufffd")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
			for dec := json.NewDecoder(bytes.NewReader(body)); ; {
				tok, err := dec.Token()
				if err != nil {
					break
				}
				if s, ok := tok.(string); ok && strings.ContainsRune(s, 0) {
					t.Fatalf("Decode accepted %q, which holds U+0000", body)
				}
				if s, ok := tok.(string); ok && strings.ContainsRune(s, utf8.RuneError) && !wroteFFFD {
					t.Fatalf("Decode accepted %q, read with U+FFFD the client did not write", body)
				}
			}
			return
		}
		fe, ok := fault.As(err)
		if !ok || (fe.Kind != fault.KindInvalid && fe.Kind != fault.KindValidation) {
			t.Fatalf("Decode(%q) = %v, want a 400 or 422 fault", body, err)
		}
		if fe.Kind == fault.KindValidation && len(fe.Fields) == 0 {
			t.Fatalf("Decode(%q): a 422 naming no field", body)
		}
		if fe.Kind == fault.KindValidation {
			for _, path := range unknownDecodeMembers(body) {
				if msgs := fe.Fields[path]; len(msgs) == 0 || !strings.HasPrefix(msgs[0], "unknown field; ") {
					t.Fatalf("Decode(%q) = %v, which does not name the unknown member %q", body, fe.Fields, path)
				}
			}
		}
		// And the handler's answer is the error shape with that status.
		rec := decode(string(body))
		readError(t, rec, map[fault.Kind]int{fault.KindInvalid: 400, fault.KindValidation: 422}[fe.Kind])
	})
}

// unknownDecodeMembers are the paths of the members of body that
// decodeTarget has no field for, found without Decode's code: its keys
// (name, active, count, parcels) and a parcel's (weight_amount).
func unknownDecodeMembers(body []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil
	}
	var unknown []string
	for key, value := range top {
		switch key {
		case "name", "active", "count":
		case "parcels":
			var parcels []json.RawMessage
			_ = json.Unmarshal(value, &parcels) // not a list: no members to name
			for i, p := range parcels {
				var members map[string]json.RawMessage
				_ = json.Unmarshal(p, &members) // not an object: none either
				for k := range members {
					if k != "weight_amount" {
						unknown = append(unknown, "parcels."+strconv.Itoa(i)+"."+k)
					}
				}
			}
		default:
			unknown = append(unknown, key)
		}
	}
	return unknown
}

// FuzzParsePage reads page and per_page from any query string: a page it
// accepts is within bounds, and the list links built from it keep every
// filter of the query and point at pages that exist.
func FuzzParsePage(f *testing.F) {
	for _, q := range []string{
		"", "page=3&per_page=100", "per_page=1", "page=1000000", "page=0", "page=-2", "page=1000001", "page=two",
		"per_page=101", "per_page=0", "per_page=abc", "page=0&per_page=abc", "status=shipped&page=99",
		"page=%2B5", "page=5&page=x", "page=0x10", "page=9223372036854775808", "per_page= 5", "search=a%26b&page=2",
		"status=%zz&page=2", "page=1;per_page=2",
	} {
		f.Add(q, uint32(35))
	}
	f.Fuzz(func(t *testing.T, rawQuery string, total uint32) {
		q, _ := url.ParseQuery(rawQuery) // as r.URL.Query(): broken pairs are dropped
		page, err := httpapi.ParsePage(q)

		errs := fault.FieldErrors{}
		if again := httpapi.PageParams(q, errs); again != page || (len(errs) == 0) != (err == nil) {
			t.Fatalf("PageParams = %+v %v, ParsePage = %+v %v", again, errs, page, err)
		}
		if err != nil {
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.KindValidation || len(fe.Fields) == 0 {
				t.Fatalf("ParsePage(%q) = %v, want a 422 on page or per_page", rawQuery, err)
			}
			for field := range fe.Fields {
				if field != "page" && field != "per_page" {
					t.Fatalf("ParsePage(%q) blames %q", rawQuery, field)
				}
			}
			return
		}
		if page.Number < 1 || page.Number > httpapi.MaxPage || page.PerPage < 1 || page.PerPage > 100 || page.Offset() < 0 {
			t.Fatalf("ParsePage(%q) = %+v, out of bounds", rawQuery, page)
		}
		for param, got := range map[string]int{"page": page.Number, "per_page": page.PerPage} {
			if v := q.Get(param); v != "" {
				if n, err := strconv.Atoi(v); err != nil || n != got {
					t.Fatalf("ParsePage(%q) read %s %d", rawQuery, param, got)
				}
			}
		}

		n := int(total % 10_000_000)
		count := max(0, min(page.PerPage, n-page.Offset()))
		r := httptest.NewRequest(http.MethodGet, "/v1/shipments", nil)
		r.URL.RawQuery = rawQuery
		list := httpapi.NewList(r, "https://api.example.com", page, make([]int, count), count, n)
		if list.Meta.LastPage < 1 || (list.Links.Next == nil) != (page.Number >= list.Meta.LastPage) {
			t.Fatalf("meta %+v, next %v for page %+v of %d", list.Meta, list.Links.Next, page, n)
		}
		for _, link := range []string{list.Links.First, list.Links.Last} {
			u, err := url.Parse(link)
			if err != nil {
				t.Fatalf("link %q: %v", link, err)
			}
			lq := u.Query()
			if p, _ := strconv.Atoi(lq.Get("page")); p < 1 || p > list.Meta.LastPage || lq.Get("per_page") != strconv.Itoa(page.PerPage) {
				t.Fatalf("link %q for page %+v, last page %d", link, page, list.Meta.LastPage)
			}
			lq.Del("page")
			lq.Del("per_page")
			want := url.Values{}
			for k, v := range q {
				if k != "page" && k != "per_page" {
					want[k] = v
				}
			}
			if !reflect.DeepEqual(lq, want) && (len(lq) != 0 || len(want) != 0) {
				t.Fatalf("link %q lost the filters %v", link, want)
			}
		}
	})
}

// FuzzOptionalObject reads metadata and external_data: null or absent is
// nil, an object is kept, anything else is one field error.
func FuzzOptionalObject(f *testing.F) {
	for _, raw := range []string{``, `null`, `{}`, `{"order":"A-1","n":[1,2]}`, `[]`, `"x"`, `1`, `true`, `{"a":`, ` null`, `{"a":"\u0000"}`} {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		errs := fault.FieldErrors{}
		got := httpapi.OptionalObject(raw, "metadata", errs)
		switch {
		case len(raw) == 0 || string(raw) == "null":
			if got != nil || len(errs) != 0 {
				t.Fatalf("OptionalObject(%q) = %v, %v; want nil and no error", raw, got, errs)
			}
		case len(errs) == 0:
			var want map[string]any
			if got == nil || json.Unmarshal(raw, &want) != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("OptionalObject(%q) = %v without an error", raw, got)
			}
		default:
			if len(errs) != 1 || !reflect.DeepEqual(errs["metadata"], []string{"must be an object"}) {
				t.Fatalf("OptionalObject(%q) errors %v", raw, errs)
			}
		}
	})
}

// FuzzRequestHeaders sends any X-Request-Id, Content-Type and body through
// the middleware every request passes: the request id answered is the
// caller's when it is safe to log and a fresh one else, and a refused body
// or type is a 400 or 422 in the error shape.
func FuzzRequestHeaders(f *testing.F) {
	for _, c := range []struct{ method, requestID, contentType, body string }{
		{http.MethodPost, "", "application/json", `{"name":"Main"}`},
		{http.MethodPost, "req-123_abc.def", "application/json; charset=utf-8", `{}`},
		{http.MethodPost, "has space", "Application/JSON", `{"count":"3"}`},
		{http.MethodPost, "", "", ""},
		{http.MethodPost, strings.Repeat("x", 129), "", `{"a":1}`},
		{http.MethodPut, "ünïcode", "text/plain", `{"a":1}`},
		{http.MethodPatch, "a\tb", "json;;;", `{}`},
		{http.MethodPatch, "", "application/x-www-form-urlencoded", `a=1`},
		{http.MethodGet, "x", "", ""},
		{http.MethodDelete, "", "application/json", ""},
	} {
		f.Add(c.method, c.requestID, c.contentType, c.body)
	}
	safeID := regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
	f.Fuzz(func(t *testing.T, method, requestID, contentType, body string) {
		if !validMethod(method) {
			t.Skip("net/http refuses the method")
		}
		var seen string
		h := httpapi.WithRequestID(httpapi.WithBodyLimit(httpapi.RequireJSON(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = httpapi.RequestID(r.Context())
			decodeHandler(w, r)
		}))))
		req := httptest.NewRequest(http.MethodPost, "/v1/shipments", strings.NewReader(body))
		req.Method = method
		req.Header.Set("X-Request-Id", requestID)
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		answered := rec.Header().Get("X-Request-Id")
		switch {
		case safeID.MatchString(requestID) && answered != requestID:
			t.Fatalf("X-Request-Id %q answered as %q", requestID, answered)
		case !safeID.MatchString(requestID) && (!strings.HasPrefix(answered, "req_") || !safeID.MatchString(answered)):
			t.Fatalf("X-Request-Id %q answered as %q", requestID, answered)
		case seen != "" && seen != answered:
			t.Fatalf("the handler saw request id %q, the answer says %q", seen, answered)
		}
		if rec.Code == http.StatusNoContent {
			mt, _, err := mime.ParseMediaType(contentType)
			needsJSON := method == http.MethodPut || method == http.MethodPatch || (method == http.MethodPost && contentType != "")
			if needsJSON && (err != nil || mt != "application/json") {
				t.Fatalf("%s with Content-Type %q was let through", method, contentType)
			}
			return
		}
		if rec.Code != http.StatusBadRequest && rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		readError(t, rec, rec.Code)
	})
}

// validMethod is the token rule net/http applies to methods.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}
