package domain_test

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"shipd/modules/webhooks/domain"
	"shipd/modules/webhooks/domain/deliverytest"
	"shipd/platform/faulttest"
)

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// types are the event types a subscription may choose in these tests.
var types = []string{"shipment.created", "shipment.updated"}

const typesList = "must be one of: shipment.created, shipment.updated"

func ptr[T any](v T) *T { return &v }

var (
	fields = faulttest.Fields
	one    = faulttest.One
)

func good() domain.Fields {
	return domain.Fields{Name: "orders", URL: "https://hooks.example.com/shipd", Events: []string{"shipment.created"}, Secret: "first-secret", Active: true}
}

// The rules of each field a client sets, on create and on change: a case
// that passes and one that fails with the path and message the API answers.
func TestSubscriptionRules(t *testing.T) {
	const invalid = "must be a valid URL (absolute, http or https)"
	tests := []struct {
		name   string
		change domain.Change // applied to good() for create, and as a change
		want   map[string][]string
	}{
		{"name trimmed", domain.Change{Name: ptr(" Orders ")}, nil},
		{"name of 255 and white space", domain.Change{Name: ptr("  " + strings.Repeat("é", 255) + " ")}, nil},
		{"name blank", domain.Change{Name: ptr("  ")}, one("name", "is required")},
		{"name of 256", domain.Change{Name: ptr(strings.Repeat("é", 256))}, one("name", "must be at most 255 characters")},
		{"name with a line break", domain.Change{Name: ptr("Orders\nX")}, one("name", `must not contain control characters or line breaks (found '\n')`)},
		{"name with a bidi override", domain.Change{Name: ptr("Orders\u202E")}, one("name", `must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u202e')`)},

		{"url with port, query and fragment", domain.Change{URL: ptr("http://127.0.0.1:8080/h?x=1#f")}, nil},
		{"url percent-encoded", domain.Change{URL: ptr("https://example.com/a%20b%0A")}, nil},
		{"url of 2048", domain.Change{URL: ptr("https://e.test/" + strings.Repeat("a", 2048-15))}, nil},
		{"url empty", domain.Change{URL: ptr("")}, one("url", "is required")},
		{"url of 2049", domain.Change{URL: ptr("https://e.test/" + strings.Repeat("a", 2049-15))}, one("url", "must be at most 2048 characters")},
		{"url with a space", domain.Change{URL: ptr("https://example.com/a b")},
			one("url", "must not contain spaces or control characters (found ' '); percent-encode them, as %20 for a space")},
		{"url with a control character", domain.Change{URL: ptr("https://example.com/h\u0085")},
			one("url", `must not contain spaces or control characters (found '\u0085'); percent-encode them, as %20 for a space`)},
		{"url relative", domain.Change{URL: ptr("/hooks")}, one("url", invalid)},
		{"url of ftp", domain.Change{URL: ptr("ftp://example.com/h")}, one("url", invalid)},
		{"url without a host", domain.Change{URL: ptr("https:///h")}, one("url", invalid)},
		{"url opaque", domain.Change{URL: ptr("https:opaque")}, one("url", invalid)},
		{"url with a space encoded in its host", domain.Change{URL: ptr("https://ex%C2%A0ample.com/")}, one("url", invalid)},
		{"url with port 0", domain.Change{URL: ptr("https://example.com:0/h")}, one("url", invalid)},
		{"url with port 65536", domain.Change{URL: ptr("https://example.com:65536/h")}, one("url", invalid)},
		{"url with credentials", domain.Change{URL: ptr("https://u:p@example.com/h")},
			one("url", "must not contain a user name or password; receivers check the signature instead")},

		{"events with a repeat", domain.Change{Events: []string{"shipment.updated", "shipment.updated"}}, nil},
		{"more events than event types", domain.Change{Events: slices.Repeat([]string{"shipment.updated"}, 10000)},
			one("events", "must have at most "+strconv.Itoa(len(types))+" items, one per event type")},
		{"no events", domain.Change{Events: []string{}}, one("events", "must contain at least one event type")},
		{"unknown events", domain.Change{Events: []string{"shipment.requested", "x"}},
			map[string][]string{"events.0": {typesList}, "events.1": {typesList}}},

		{"secret of 8 letters beyond ASCII", domain.Change{Secret: strings.Repeat("á", 8)}, nil},
		{"secret of 255", domain.Change{Secret: strings.Repeat("s", 255)}, nil},
		{"secret of 7", domain.Change{Secret: "1234567"}, one("secret", "must be at least 8 characters")},
		{"secret of 256", domain.Change{Secret: strings.Repeat("s", 256)}, one("secret", "must be at most 255 characters")},
		{"secret of white space", domain.Change{Secret: "\t\n\u3000\u00a0    "}, one("secret", "must not be only white space")},
		{"secret of little white space", domain.Change{Secret: "  "}, one("secret", "must not be only white space")},

		{"every problem at once", domain.Change{Name: ptr(""), URL: ptr("x"), Events: []string{}, Secret: "short"}, map[string][]string{
			"name": {"is required"}, "url": {invalid}, "events": {"must contain at least one event type"}, "secret": {"must be at least 8 characters"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := goodWith(tt.change)
			if got := fields(t, f.Check(types)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Fields.Check = %v, want %v", got, tt.want)
			}
			sub, err := domain.NewSubscription("wh_1", "acc_1", f, types, t0)
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) || (err == nil) != (sub != nil) {
				t.Errorf("NewSubscription = %v, want %v", got, tt.want)
			}
			if got := fields(t, tt.change.Check(types)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Change.Check = %v, want %v", got, tt.want)
			}
			sub, _ = domain.NewSubscription("wh_1", "acc_1", good(), types, t0)
			before := sub.Stored()
			err = sub.Apply(tt.change, types, t0.Add(time.Hour))
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Apply = %v, want %v", got, tt.want)
			}
			if err != nil && !reflect.DeepEqual(sub.Stored(), before) {
				t.Errorf("a refused change changed %+v", sub.Stored())
			}
		})
	}
}

// goodWith is good() with what c names.
func goodWith(c domain.Change) domain.Fields {
	f := good()
	if c.Name != nil {
		f.Name = *c.Name
	}
	if c.URL != nil {
		f.URL = *c.URL
	}
	if c.Events != nil {
		f.Events = c.Events
	}
	if c.Secret != "" {
		f.Secret = c.Secret
	}
	return f
}

// A URL is kept as the client wrote it: a space or control character
// anywhere, the ends too, is refused and named.
func TestURLWithSpacesOrControls(t *testing.T) {
	for _, c := range []struct{ url, found string }{
		{"https://example.com/a b", `' '`}, {"https://example.com/h?q=a b", `' '`}, {"https://example.com/h#a b", `' '`},
		{" https://example.com/h", `' '`}, {"https://example.com/h ", `' '`}, {"https://example.com/h\n", `'\n'`},
		{"https://example.com/h\r\nX-Evil: 1", `'\r'`}, {"https://example.com/\th", `'\t'`}, {"https://example.com/h\x1b", `'\x1b'`},
		{"https://example.com/h\x7f", `'\x7f'`}, {"https://example.com/h\u0085", `'\u0085'`}, {"https://example.com/h\u009f", `'\u009f'`},
		{"https://example.com/h\u00a0", `'\u00a0'`}, {"https://example.com/h\u3000", `'\u3000'`}, {"https://example.com/h\u2028", `'\u2028'`},
	} {
		want := one("url", "must not contain spaces or control characters (found "+c.found+"); percent-encode them, as %20 for a space")
		if got := fields(t, domain.Change{URL: &c.url}.Check(types)); !reflect.DeepEqual(got, want) {
			t.Errorf("url %q: %v, want %v", c.url, got, want)
		}
	}
}

// A new subscription's fields, as Fields has them: a name, a URL, events
// (none given is not an empty list) and a secret are required; a secret
// given empty is refused, as the caller makes one when it is left out.
func TestNewSubscriptionRequiresItsFields(t *testing.T) {
	_, err := domain.NewSubscription("wh_1", "acc_1", domain.Fields{}, types, t0)
	want := map[string][]string{"name": {"is required"}, "url": {"is required"}, "events": {"is required"},
		"secret": {"must not be empty; leave it out to have one generated"}}
	if got := fields(t, err); !reflect.DeepEqual(got, want) {
		t.Errorf("NewSubscription of nothing = %v, want %v", got, want)
	}
	f := good()
	f.Name, f.Events = " Orders ", []string{"shipment.updated", "shipment.created", "shipment.updated"}
	// Three items may name three types; a repeat is kept once.
	sub, err := domain.NewSubscription("wh_1", "acc_1", f, append(slices.Clone(types), "shipment.deleted"), t0)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Name() != "Orders" || !reflect.DeepEqual(sub.Events(), []string{"shipment.updated", "shipment.created"}) || sub.Version() != 1 {
		t.Errorf("kept %+v", sub.Stored())
	}
}

// A change sets only what it names; an empty secret keeps the secret.
func TestApplyKeepsWhatIsNotNamed(t *testing.T) {
	sub, _ := domain.NewSubscription("wh_1", "acc_1", good(), types, t0)
	if err := sub.Apply(domain.Change{Name: ptr(" Renamed "), Active: ptr(false)}, types, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	st := sub.Stored()
	if st.Name != "Renamed" || st.Active || st.URL != good().URL || st.Secret != "first-secret" || st.Version != 2 || !st.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("after the change: %+v", st)
	}
}

// FuzzURLProblem checks delivery URLs directly: one the rule accepts is one
// the sender can call and shows no credentials.
func FuzzURLProblem(f *testing.F) {
	for _, u := range []string{
		"https://hooks.example.com/shipd?x=1", "http://127.0.0.1:8080/h", "http://[::1]:9/h", "/hooks", "ftp://example.com/h",
		"https:///h", "https://example.com:99999/h", "https://example.com:0/h", "https://u:p@example.com/h", "https:opaque", "",
		"https://example.com:/h", "https://exa mple.com/h", "https://%zz/", "HTTPS://EXAMPLE.COM/#frag",
		"https://example.com/a b", "https://example.com/h?q=a b", "https://example.com/h#a b", " https://example.com/h", "https://example.com/h\n",
		"https://example.com/\x7f", "https://example.com/\u0085", "https://example.com/\u00a0", "https://example.com/\u3000", "https://example.com/\u200b",
		"https://example.com/a%20b%0A%7F", "https://ex%C2%85ample.com/", "https://ex%C2%A0ample.com/", "https://b%C3%BCcher.example/", "https://bücher.example/",
	} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if domain.URLProblem(raw) != "" {
			return
		}
		deliverytest.CheckURL(t, raw)
	})
}
