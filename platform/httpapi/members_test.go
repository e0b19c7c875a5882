package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

type memberContact struct {
	EmailAddress string `json:"email_address"`
	PhoneNumber  string `json:"phone_number"`
}

type memberParcel struct {
	WeightAmount float64 `json:"weight_amount"`
	WeightUnit   string  `json:"weight_unit"`
}

type memberAudit struct {
	Source string `json:"source"`
}

// memberTarget has every kind of member a request type declares: nested
// objects, a list of them, one read later by hand (Raw), free-form ones,
// one that reads its own JSON, an embedded struct, a skipped field.
type memberTarget struct {
	memberAudit
	ShippingChannelID    string                      `json:"shipping_channel_id"`
	CashOnDeliveryAmount *float64                    `json:"cash_on_delivery_amount"`
	SenderContact        *memberContact              `json:"sender_contact"`
	Parcels              []memberParcel              `json:"parcels"`
	Later                httpapi.Raw[[]memberParcel] `json:"later"`
	One                  httpapi.Raw[memberParcel]   `json:"one"`
	ByName               map[string]memberParcel     `json:"by_name"`
	Metadata             map[string]any              `json:"metadata"`
	Settings             json.RawMessage             `json:"settings"`
	Events               json.RawMessage             `json:"events"`
	At                   *time.Time                  `json:"at"`
	Internal             string                      `json:"-"`
	Nested               [][]memberContact           `json:"nested"`
	Untagged             string
}

func decodeMembers(t *testing.T, body string) (memberTarget, error) {
	t.Helper()
	var dst memberTarget
	err := httpapi.Decode(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), &dst)
	return dst, err
}

// A member the request type has no field for is refused, at any depth of
// its fixed structure, each one named by its dotted path; free-form members
// keep whatever keys they hold.
func TestDecodeRefusesUnknownMembers(t *testing.T) {
	fields := "source, shipping_channel_id, cash_on_delivery_amount, sender_contact, parcels, later, one, by_name, metadata, settings, events, at, nested, Untagged"
	tests := []struct {
		name, body string
		want       map[string][]string
	}{
		{"top level", `{"shipping_channel_id":"ch_1","bogus":1}`,
			map[string][]string{"bogus": {"unknown field; the fields here are: " + fields}}},
		{"misspelt", `{"cash_on_delivery_amout":12.5}`,
			map[string][]string{"cash_on_delivery_amout": {"unknown field; did you mean cash_on_delivery_amount?"}}},
		{"another case", `{"Shipping_Channel_ID":"ch_1"}`,
			map[string][]string{"Shipping_Channel_ID": {"unknown field; did you mean shipping_channel_id?"}}},
		{"in an object", `{"sender_contact":{"emial":"a@b.test","phone_number":"1"}}`,
			map[string][]string{"sender_contact.emial": {"unknown field; the fields here are: email_address, phone_number"}}},
		{"in a list item", `{"parcels":[{"weight_amount":1},{"weigth_amount":2}]}`,
			map[string][]string{"parcels.1.weigth_amount": {"unknown field; did you mean weight_amount?"}}},
		{"in a member read later", `{"later":[{"weight_amount":1,"weight_unti":"KG"}]}`,
			map[string][]string{"later.0.weight_unti": {"unknown field; did you mean weight_unit?"}}},
		{"in one read later", `{"one":{"weight":1}}`,
			map[string][]string{"one.weight": {"unknown field; the fields here are: weight_amount, weight_unit"}}},
		{"in a map's value", `{"by_name":{"big":{"unit":"KG"}}}`,
			map[string][]string{"by_name.big.unit": {"unknown field; the fields here are: weight_amount, weight_unit"}}},
		{"in a list of lists", `{"nested":[[{"email_address":"x"}],[{"fax":"1"}]]}`,
			map[string][]string{"nested.1.0.fax": {"unknown field; the fields here are: email_address, phone_number"}}},
		{"a skipped field", `{"Internal":"x"}`,
			map[string][]string{"Internal": {"unknown field; the fields here are: " + fields}}},
		{"several", `{"bogus":1,"sender_contact":{"fax":"1"},"parcels":[{"colour":"red","weight_amout":1}]}`,
			map[string][]string{
				"bogus":                  {"unknown field; the fields here are: " + fields},
				"sender_contact.fax":     {"unknown field; the fields here are: email_address, phone_number"},
				"parcels.0.colour":       {"unknown field; the fields here are: weight_amount, weight_unit"},
				"parcels.0.weight_amout": {"unknown field; did you mean weight_amount?"},
			}},
		{"beside a wrong type", `{"shipping_channel_id":5,"bogus":1}`,
			map[string][]string{"shipping_channel_id": {"must be a string"}, "bogus": {"unknown field; the fields here are: " + fields}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeMembers(t, tt.body)
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.KindValidation || !reflect.DeepEqual(fe.Fields, tt.want) {
				t.Fatalf("Decode(%s) = %v, want a 422 with %v", tt.body, err, tt.want)
			}
		})
	}
}

// And the answer is the error shape's 422.
func TestUnknownMemberAnswer(t *testing.T) {
	b := readError(t, decode(`{"name":"x","parcels":[{"weight_amount":1,"weight_unit":"KG"}]}`), http.StatusUnprocessableEntity)
	want := map[string][]string{"parcels.0.weight_unit": {"unknown field; the fields here are: weight_amount"}}
	if b.Error.Code != "validation_failed" || !reflect.DeepEqual(b.Errors, want) || !reflect.DeepEqual(b.Error.Errors, want) {
		t.Errorf("the answer: %+v", b)
	}
}

func TestDecodeKeepsFreeFormMembers(t *testing.T) {
	body := `{"source":"shop","Untagged":"u","metadata":{"any":{"deep":[{"thing":1}]}},"settings":{"api_kye":"x"},` +
		`"events":[{"not":"a string"}],"at":"2026-11-28T00:00:00Z","by_name":{},"later":null,"one":null,` +
		`"parcels":[],"sender_contact":null,"nested":[[]]}`
	dst, err := decodeMembers(t, body)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if dst.Source != "shop" || dst.Metadata["any"] == nil || string(dst.Settings) != `{"api_kye":"x"}` || string(dst.Later) != "null" {
		t.Errorf("decoded %+v", dst)
	}
}

// A member read later holds what was sent, as json.RawMessage would.
func TestRawKeepsTheJSONSent(t *testing.T) {
	dst, err := decodeMembers(t, `{"later":[ {"weight_amount": 1.50} ],"one":{"weight_unit":"KG"}}`)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if string(dst.Later) != `[ {"weight_amount": 1.50} ]` || string(dst.One) != `{"weight_unit":"KG"}` {
		t.Errorf("later %s, one %s", dst.Later, dst.One)
	}
	out, err := json.Marshal(struct {
		A httpapi.Raw[memberParcel] `json:"a"`
		B httpapi.Raw[memberParcel] `json:"b"`
	}{A: dst.One})
	if err != nil || string(out) != `{"a":{"weight_unit":"KG"},"b":null}` {
		t.Errorf("Marshal = %s, %v", out, err)
	}
	if _, err := decodeMembers(t, `{"later":{"weight_amount":1}}`); err != nil {
		t.Errorf("a member of another JSON type than its shape is the port's to judge: %v", err)
	}
}

// A write that takes no body takes nothing, or an object without members.
func TestDecodeNone(t *testing.T) {
	for body, want := range map[string]int{
		"": 0, " \n": 0, "{}": 0, " { } ": 0, "null": 0, " null\n": 0, "nul": 400, "[null]": 400,
		`{"reason":"x"}`: 422, "[]": 400, "{": 400, "x": 400,
	} {
		err := httpapi.DecodeNone(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
		if body == "" {
			// A request made in process may have no body at all.
			inProcess, _ := http.NewRequest(http.MethodPost, "/", nil)
			if err := httpapi.DecodeNone(inProcess); err != nil {
				t.Errorf("DecodeNone of a request without a body = %v", err)
			}
		}
		fe, _ := fault.As(err)
		switch {
		case want == 0 && err != nil:
			t.Errorf("DecodeNone(%q) = %v, want nil", body, err)
		case want == 400 && (fe == nil || fe.Kind != fault.KindInvalid):
			t.Errorf("DecodeNone(%q) = %v, want a 400", body, err)
		case want == 422 && (fe == nil || !reflect.DeepEqual(fe.Fields, map[string][]string{"reason": {"unknown field; this request takes no fields"}})):
			t.Errorf("DecodeNone(%q) = %v, want a 422 on reason", body, err)
		}
	}
}
