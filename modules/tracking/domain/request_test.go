package domain_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/modules/tracking/domain"
	"shipd/platform/faulttest"
)

func ptr[T any](v T) *T { return &v }

var (
	fields = faulttest.Fields
	one    = faulttest.One
)

// Every rule of a request to track a parcel: a case that passes and one
// that fails with the path and message the API answers.
func TestRequestRules(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes
	tests := []struct {
		name   string
		change func(r *domain.Request)
		want   map[string][]string // nil: passes
	}{
		{"number as carriers print it", func(r *domain.Request) { r.TrackingNumber = "sb-1000 0001\u00a07cz" }, nil},
		{"number required", func(r *domain.Request) { r.TrackingNumber = "" }, one("tracking_number", "is required")},
		{"number of white space", func(r *domain.Request) { r.TrackingNumber = " \t " }, one("tracking_number", "must not be empty")},
		{"number of 64", func(r *domain.Request) { r.TrackingNumber = strings.Repeat("1 ", 64) }, nil},
		{"number of 65", func(r *domain.Request) { r.TrackingNumber = strings.Repeat("1", 65) }, one("tracking_number", "must be at most 64 characters")},
		{"number of 64 letters in 128 bytes", func(r *domain.Request) { r.TrackingNumber = long(33) }, one("tracking_number", "must be at most 64 characters")},
		{"number with other characters", func(r *domain.Request) { r.TrackingNumber = "SB<1>" }, one("tracking_number", "may hold only letters, digits and hyphens")},
		{"number with letters beyond A to Z", func(r *domain.Request) { r.TrackingNumber = "ščř" }, one("tracking_number", "may hold only letters, digits and hyphens")},
		{"channel given", func(r *domain.Request) { r.ChannelID = " " }, nil},
		{"channel required", func(r *domain.Request) { r.ChannelID = "" }, one("shipping_channel_id", "is required")},
		{"recipient at its bounds", func(r *domain.Request) {
			r.Recipient = domain.Recipient{Name: long(255), Email: strings.Repeat("a", 248) + "@b.test", Phone: strings.Repeat("1", 50)}
		}, nil},
		{"no recipient", func(r *domain.Request) { r.Recipient = domain.Recipient{} }, nil},
		{"name of 256", func(r *domain.Request) { r.Recipient.Name = long(256) }, one("recipient_name", "must be at most 255 characters")},
		{"external data past 16 KiB", func(r *domain.Request) { r.ExternalData = map[string]any{"n": strings.Repeat("n", 16*1024)} },
			one("external_data", "must be at most 16384 bytes as JSON (it is 16392)")},
		{"name with a line break", func(r *domain.Request) { r.Recipient.Name = "Jana\nX" }, one("recipient_name", `must not contain control characters or line breaks (found '\n')`)},
		{"phone and email with a bidi override", func(r *domain.Request) { r.Recipient.Phone, r.Recipient.Email = "+420\u202E1", "a\u202E@b.test" },
			map[string][]string{"recipient_phone": {`must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u202e')`}, "recipient_email": {`must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u202e')`}}},
		{"name of 255 and white space", func(r *domain.Request) { r.Recipient.Name = " " + long(255) },
			one("recipient_name", "must be at most 255 characters")},
		{"email malformed", func(r *domain.Request) { r.Recipient.Email = "jana" }, one("recipient_email", "must be a valid email address")},
		{"email with white space around", func(r *domain.Request) { r.Recipient.Email = " jana@example.test" },
			one("recipient_email", "must be a valid email address")},
		{"email of 256", func(r *domain.Request) { r.Recipient.Email = strings.Repeat("a", 249) + "@b.test" },
			one("recipient_email", "must be at most 255 characters")},
		{"phone of 51", func(r *domain.Request) { r.Recipient.Phone = strings.Repeat("1", 51) }, one("recipient_phone", "must be at most 50 characters")},
		{"checks at their bounds", func(r *domain.Request) { r.CheckDelayHours, r.MaxChecks = ptr(1), ptr(1000) }, nil},
		{"checks at their other bounds", func(r *domain.Request) { r.CheckDelayHours, r.MaxChecks = ptr(168), ptr(1) }, nil},
		{"delay 0", func(r *domain.Request) { r.CheckDelayHours = ptr(0) }, one("check_delay_hours", "must be at least 1")},
		{"delay over a week", func(r *domain.Request) { r.CheckDelayHours = ptr(169) }, one("check_delay_hours", "must be at most 168")},
		{"no checks", func(r *domain.Request) { r.MaxChecks = ptr(0) }, one("max_checks", "must be at least 1")},
		{"too many checks", func(r *domain.Request) { r.MaxChecks = ptr(1001) }, one("max_checks", "must be at most 1000")},
		{"every problem at once", func(r *domain.Request) {
			*r = domain.Request{TrackingNumber: "<>", Recipient: domain.Recipient{Email: "x"}, CheckDelayHours: ptr(-1), MaxChecks: ptr(1001)}
		}, map[string][]string{"tracking_number": {"may hold only letters, digits and hyphens"}, "shipping_channel_id": {"is required"},
			"recipient_email": {"must be a valid email address"}, "check_delay_hours": {"must be at least 1"}, "max_checks": {"must be at most 1000"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := domain.Request{TrackingNumber: "SB000000014CZ", ChannelID: "ch_1"}
			tt.change(&r)
			if got := fields(t, r.Check()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Check = %v, want %v", got, tt.want)
			}
			p, err := domain.New("tp_1", "acc_1", "sandbox", r, t0)
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) || (err == nil) != (p != nil) {
				t.Errorf("New = %v, want %v", got, tt.want)
			}
		})
	}
}

// A new parcel keeps its number as carriers print it, its recipient
// without white space around, and the default check settings when none
// were asked for; its first check is due at once.
func TestNewKeepsTheRequestExact(t *testing.T) {
	p, err := domain.New("tp_1", "acc_1", "sandbox", domain.Request{TrackingNumber: " sb 1000 0001 7cz", ChannelID: "ch_1",
		Recipient: domain.Recipient{Name: " Jana ", Email: "jana@example.test", Phone: " 1 "}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stored()
	if st.TrackingNumber != "SB100000017CZ" || st.Recipient != (domain.Recipient{Name: "Jana", Email: "jana@example.test", Phone: "1"}) ||
		st.CheckDelayHours != domain.DefaultCheckDelayHours || st.MaxChecks != domain.DefaultMaxChecks || st.ExternalData == nil ||
		st.ID != "tp_1" || st.AccountID != "acc_1" || st.ChannelID != "ch_1" || st.Provider != "sandbox" || st.Version != 1 ||
		st.NextCheckAt == nil || !st.NextCheckAt.Equal(t0) || p.Internal() {
		t.Errorf("state %+v", st)
	}
	p, _ = domain.New("tp_2", "acc_1", "sandbox", domain.Request{TrackingNumber: "SB1", ChannelID: "ch_1", CheckDelayHours: ptr(2), MaxChecks: ptr(3),
		ExternalData: map[string]any{"order": "A-17"}}, t0)
	if st := p.Stored(); st.CheckDelayHours != 2 || st.MaxChecks != 3 || st.ExternalData["order"] != "A-17" {
		t.Errorf("asked settings: %+v", st)
	}
}

// A shipment's parcel keeps the number its carrier gave, as given: the
// rules of a client's number are not the carrier's.
func TestNewForShipmentKeepsTheCarriersNumber(t *testing.T) {
	p := domain.NewForShipment("tp_1", "acc_1", "ch_1", "ppl", "sh_1", "4001 abc", domain.Recipient{Name: "Jana"}, true, t0)
	st := p.Stored()
	if st.TrackingNumber != "4001 abc" || st.ShipmentID != "sh_1" || !st.AwaitsCOD || !p.Internal() ||
		st.CheckDelayHours != domain.DefaultCheckDelayHours || st.MaxChecks != domain.DefaultMaxChecks || st.NextCheckAt == nil {
		t.Errorf("state %+v", st)
	}
}

// Every rule of an edit of the recipient; a refused edit changes nothing.
func TestEditRules(t *testing.T) {
	tests := []struct {
		name                string
		nameV, email, phone *string
		want                map[string][]string // nil: passes
		kept                domain.Recipient    // after the edit
	}{
		{"nothing", nil, nil, nil, nil, domain.Recipient{Name: "Jana", Email: "jana@example.test", Phone: "1"}},
		{"trimmed", ptr("  Jana Nováková "), ptr(" a@b.test "), ptr(" 2 "), nil, domain.Recipient{Name: "Jana Nováková", Email: "a@b.test", Phone: "2"}},
		{"cleared", ptr(""), ptr("  "), ptr(""), nil, domain.Recipient{}},
		{"name of 256", ptr(strings.Repeat("é", 256)), nil, nil, one("recipient_name", "must be at most 255 characters"), domain.Recipient{}},
		{"name with a line break", ptr("Jana\nX"), nil, nil, one("recipient_name", `must not contain control characters or line breaks (found '\n')`), domain.Recipient{}},
		{"name of 255 and white space", ptr(" " + strings.Repeat("x", 255)), nil, nil, one("recipient_name", "must be at most 255 characters"), domain.Recipient{}},
		{"email malformed", nil, ptr(" nope "), nil, one("recipient_email", "must be a valid email address"), domain.Recipient{}},
		{"email long and malformed", nil, ptr(strings.Repeat("a", 256)), nil,
			map[string][]string{"recipient_email": {"must be at most 255 characters", "must be a valid email address"}}, domain.Recipient{}},
		{"phone of 51", nil, nil, ptr(strings.Repeat("1", 51)), one("recipient_phone", "must be at most 50 characters"), domain.Recipient{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := domain.New("tp_1", "acc_1", "sandbox", domain.Request{TrackingNumber: "SB1", ChannelID: "ch_1",
				Recipient: domain.Recipient{Name: "Jana", Email: "jana@example.test", Phone: "1"}}, t0)
			if got := fields(t, domain.CheckEdit(tt.nameV, tt.email, tt.phone, nil)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CheckEdit = %v, want %v", got, tt.want)
			}
			changed, err := p.Edit(tt.nameV, tt.email, tt.phone, map[string]any{"b": 1.0}, t0.Add(time.Hour))
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Edit = %v, want %v", got, tt.want)
			}
			st := p.Stored()
			if tt.want != nil {
				if changed || st.Version != 1 || st.Recipient.Name != "Jana" || len(st.ExternalData) != 0 {
					t.Errorf("a refused edit changed %+v", st)
				}
				return
			}
			if !changed || st.Recipient != tt.kept || st.ExternalData["b"] != 1.0 {
				t.Errorf("after the edit: %v %+v", changed, st)
			}
		})
	}
}
