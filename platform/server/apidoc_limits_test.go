package server_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"shipd/platform/apptest"
	"shipd/platform/carrier"
)

// A limit of a request field the document states: the JSON path of the
// field (parcels.0.weight_unit, as the API names fields) and its schema.
type statedLimit struct {
	path   []string
	schema *openapi3.Schema
}

func (l statedLimit) name() string { return strings.Join(l.path, ".") }

// limitsOf walks a request schema's properties (objects, and the first item
// of an array of objects) and returns every string and array field.
func limitsOf(s *openapi3.Schema, path []string) []statedLimit {
	var out []statedLimit
	for name, ref := range s.Properties {
		p := ref.Value
		at := append(slices.Clone(path), name)
		switch {
		case p.Type.Includes("string"), p.Type.Includes("array"):
			out = append(out, statedLimit{at, p})
			if p.Items != nil && p.Items.Value.Type.Includes("object") {
				out = append(out, limitsOf(p.Items.Value, append(at, "0"))...)
			}
		case p.Type.Includes("object"):
			out = append(out, limitsOf(p, at)...)
		}
	}
	return out
}

// unlimited are request strings the document gives no maxLength or
// pattern, and why: each is looked up or matched against a list, so any
// other value is a 422 naming it.
var unlimited = map[string]string{
	"shipping_channel_id":       "an id, looked up: an unknown one is a 422 naming it",
	"provider":                  "one of GET /v1/providers",
	"cash_on_delivery_currency": "an ISO 4217 code of money",
	"country_code":              "an ISO 3166-1 alpha-2 code",
	"status":                    "an enum (ActiveStatus)",
}

// filler is a valid value of n characters for the field.
func filler(field string, n int) any {
	switch field {
	case "email_address", "recipient_email":
		return strings.Repeat("a", n-len("@b.test")) + "@b.test"
	case "url":
		return "https://example.com/" + strings.Repeat("a", n-len("https://example.com/"))
	case "tracking_number":
		return strings.Repeat("A", n)
	}
	return strings.Repeat("a", n)
}

// withValue is a deep copy of body with the field at path set to v.
func withValue(t *testing.T, body map[string]any, path []string, v any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var node any = out
	for i, key := range path {
		last := i == len(path)-1
		switch n := node.(type) {
		case map[string]any:
			if last {
				n[key] = v
			} else {
				node = n[key]
			}
		case []any:
			idx, _ := strconv.Atoi(key)
			if last {
				n[idx] = v
			} else {
				node = n[idx]
			}
		default:
			t.Fatalf("no %s in the body", strings.Join(path, "."))
		}
	}
	return out
}

// The document and the server agree on every bound of a request field: for
// each string with maxLength and each array with maxItems in the bodies of
// every create and edit, the server refuses one more with a 422 naming the
// field and takes the limit itself (no problem named on the field); for each
// string with a pattern, it refuses a control character and a bidi override
// exactly when the pattern does. A request string without either is listed
// in unlimited with the reason, so a field added without its limit fails.
func TestDocumentAndServerAgreeOnTheLimits(t *testing.T) {
	t.Parallel()
	env, _ := startKeepingApp(t)
	doc := loadDocument(t)
	key := env.NewKey("acme")
	active := env.ActiveSandboxChannel(key, "Sandbox", nil)
	parcelsBody := shipment(active)
	parcelsBody["parcels"] = []any{parcelsBody["parcel"]}
	delete(parcelsBody, "parcel")
	parcelsBody["additional_services"] = []any{"SMS"}
	parcelsBody["pickup_point_id"] = "" // sandbox's STANDARD takes none; "" is none
	hook := map[string]any{"name": "n", "url": "https://example.com/h", "events": []any{"shipment.created"}, "secret": "first-secret"}
	tracking := map[string]any{"tracking_number": "SB1", "shipping_channel_id": active, "recipient_name": "Jana",
		"recipient_email": "jana@example.test", "recipient_phone": "1"}
	created := func(path string, body map[string]any) string {
		t.Helper()
		res := env.Do(apptest.Request{Method: http.MethodPost, Path: path, Key: key, Body: body})
		if res.Status != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", path, res.Status, res.Body)
		}
		return res.Data(t)["id"].(string)
	}
	chID := created("/v1/shipping-channels", channel("Limits"))
	shID := created("/v1/shipments", parcelsBody)
	tpID := created("/v1/tracking-parcels", tracking)
	whID := created("/v1/webhook-subscriptions", hook)
	eventTypes := eventTypes(doc)

	ops := []struct {
		method, docPath, path string
		body                  map[string]any
	}{
		{http.MethodPost, "/shipments", "/v1/shipments", parcelsBody},
		{http.MethodPatch, "/shipments/{id}", "/v1/shipments/" + shID, map[string]any{"reference_number": "R"}},
		{http.MethodPost, "/shipping-channels", "/v1/shipping-channels", channel("Main")},
		{http.MethodPatch, "/shipping-channels/{id}", "/v1/shipping-channels/" + chID, map[string]any{"description": "d"}},
		{http.MethodPost, "/tracking-parcels", "/v1/tracking-parcels", tracking},
		{http.MethodPatch, "/tracking-parcels/{id}", "/v1/tracking-parcels/" + tpID, map[string]any{"recipient_name": "J"}},
		{http.MethodPost, "/webhook-subscriptions", "/v1/webhook-subscriptions", hook},
		{http.MethodPatch, "/webhook-subscriptions/{id}", "/v1/webhook-subscriptions/" + whID, map[string]any{"name": "m"}},
	}
	checked := 0
	for _, op := range ops {
		schema := doc.Paths.Value(op.docPath).GetOperation(op.method).RequestBody.Value.Content.Get("application/json").Schema.Value
		// problems sends body and returns the problems of length, count or
		// characters named on field, and whether the answer was a 422. Other
		// rules may refuse a value at the limit (a name taken, a pickup
		// point the product takes none of): not the limit's business.
		problems := func(body map[string]any, field string) ([]string, bool) {
			t.Helper()
			res := env.Do(apptest.Request{Method: op.method, Path: op.path, Key: key, Body: body})
			if res.Status >= 500 {
				t.Fatalf("%s %s: %d %s", op.method, op.path, res.Status, res.Body)
			}
			errs, _ := res.JSON(t)["errors"].(map[string]any)
			all, _ := errs[field].([]any)
			var reasons []string
			for _, r := range all {
				if s, _ := r.(string); strings.Contains(s, "at most") || strings.Contains(s, "must not contain") {
					reasons = append(reasons, s)
				}
			}
			return reasons, res.Status == http.StatusUnprocessableEntity
		}
		for _, l := range limitsOf(schema, nil) {
			what := op.method + " " + op.docPath + " " + l.name()
			leaf := l.path[len(l.path)-1]
			s := l.schema
			if s.MaxLength == nil && s.Pattern == "" && s.Enum == nil && s.Type.Includes("string") && unlimited[leaf] == "" {
				t.Errorf("%s: a string the document bounds by neither maxLength nor pattern", what)
			}
			if s.Type.Includes("array") && s.MaxItems == nil {
				t.Errorf("%s: an array without maxItems", what)
			}
			if s.MaxLength != nil {
				n := int(*s.MaxLength)
				if reasons, _ := problems(withValue(t, op.body, l.path, filler(leaf, n)), l.name()); len(reasons) > 0 {
					t.Errorf("%s: %d characters, the document's maxLength, refused: %v", what, n, reasons)
				}
				if reasons, is422 := problems(withValue(t, op.body, l.path, filler(leaf, n+1)), l.name()); !is422 || len(reasons) == 0 {
					t.Errorf("%s: %d characters, past the document's maxLength, not refused naming the field", what, n+1)
				}
				checked++
			}
			if s.MaxItems != nil {
				n := int(*s.MaxItems)
				items := func(k int) []any {
					out := make([]any, k)
					for i := range out {
						switch l.name() {
						case "events":
							out[i] = eventTypes[i%len(eventTypes)]
						case "additional_services":
							out[i] = "SMS"
						default:
							out[i] = parcelsBody["parcels"].([]any)[0]
						}
					}
					return out
				}
				// A provider may take fewer parcels than the most any
				// takes, as the document says: only the bound is checked.
				if l.name() != "parcels" {
					if reasons, _ := problems(withValue(t, op.body, l.path, items(n)), l.name()); len(reasons) > 0 {
						t.Errorf("%s: %d items, the document's maxItems, refused: %v", what, n, reasons)
					}
				}
				if reasons, is422 := problems(withValue(t, op.body, l.path, items(n+1)), l.name()); !is422 || len(reasons) == 0 {
					t.Errorf("%s: %d items, past the document's maxItems, not refused naming the field", what, n+1)
				}
				checked++
			}
			if s.Pattern != "" && s.Enum == nil && !strings.HasPrefix(s.Pattern, "^(") { // the enums in any case
				pattern := regexp.MustCompile(s.Pattern)
				for _, r := range []rune{'\n', '\x1b', '\u2028', '\u202e', '\u200b', '\u00e9'} {
					v := filler(leaf, 12).(string)
					v = v[:1] + string(r) + v[1:]
					reasons, _ := problems(withValue(t, op.body, l.path, v), l.name())
					if refused := len(reasons) > 0; refused == pattern.MatchString(v) {
						t.Errorf("%s: %q refused %v, but the document's pattern matches it %v", what, v, refused, pattern.MatchString(v))
					}
				}
				checked++
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d limits checked", checked)
	}
	t.Logf("%d limits checked", checked)
}

// The document's two character rules are the server's, rune for rune: a
// pattern a request string carries is NameProblem's or TextProblem's.
func TestDocumentCharacterRulesAreTheServers(t *testing.T) {
	doc := loadDocument(t)
	rules := map[string]func(string) string{}
	for name, ref := range doc.Components.Schemas {
		for _, l := range limitsOf(ref.Value, []string{name}) {
			p := l.schema.Pattern
			if l.schema.Items != nil {
				p = l.schema.Items.Value.Pattern
			}
			switch {
			case !strings.Contains(p, `\p{`): // an enum, a date, a code
			case strings.Contains(p, `\p{Cf}`):
				rules[p] = carrier.NameProblem
			default:
				rules[p] = carrier.TextProblem
			}
		}
	}
	if len(rules) != 2 {
		t.Fatalf("character rules in the document: %v, want the name and the text rule", rules)
	}
	for p, problem := range rules {
		re := regexp.MustCompile(p)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if !utf8.ValidRune(r) {
				continue
			}
			if s := string(r); re.MatchString(s) != (problem(s) == "") {
				t.Fatalf("pattern %s and the server disagree on %U", p, r)
			}
		}
	}
}
