package ports

import (
	"encoding/json"
	"strings"

	"shipd/modules/tracking/domain"
	"shipd/platform/httpapi"
)

// createRequest is the body of POST /v1/tracking-parcels.
type createRequest struct {
	TrackingNumber    string          `json:"tracking_number" validate:"required"`
	ShippingChannelID string          `json:"shipping_channel_id" validate:"required"`
	RecipientName     string          `json:"recipient_name" validate:"max=255"`
	RecipientEmail    string          `json:"recipient_email" validate:"omitempty,email,max=255"`
	RecipientPhone    string          `json:"recipient_phone" validate:"max=50"`
	CheckDelayHours   *int            `json:"check_delay_hours" validate:"omitnil,min=1,max=168"`
	MaxChecks         *int            `json:"max_checks" validate:"omitnil,min=1,max=1000"`
	ExternalData      json.RawMessage `json:"external_data"`
}

// check validates the body and returns the parcel to create.
func (req createRequest) check() (domain.State, error) {
	errs := httpapi.Validate(req)
	number := normalizeNumber(req.TrackingNumber)
	if req.TrackingNumber != "" {
		if reason := numberProblem(number); reason != "" {
			errs.Add("tracking_number", reason)
		}
	}
	external := httpapi.OptionalObject(req.ExternalData, "external_data", errs)
	if err := errs.Err(); err != nil {
		return domain.State{}, err
	}
	st := domain.State{
		TrackingNumber: number, ChannelID: req.ShippingChannelID,
		Recipient:       domain.Recipient{Name: strings.TrimSpace(req.RecipientName), Email: strings.TrimSpace(req.RecipientEmail), Phone: strings.TrimSpace(req.RecipientPhone)},
		CheckDelayHours: domain.DefaultCheckDelayHours, MaxChecks: domain.DefaultMaxChecks, ExternalData: external,
	}
	if req.CheckDelayHours != nil {
		st.CheckDelayHours = *req.CheckDelayHours
	}
	if req.MaxChecks != nil {
		st.MaxChecks = *req.MaxChecks
	}
	return st, nil
}

// normalizeNumber writes a tracking number the way carriers print it:
// without spaces, in capitals ("sb 1234 5678" is SB12345678).
func normalizeNumber(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

func numberProblem(n string) string {
	if n == "" {
		return "must not be empty"
	}
	if len(n) > 64 {
		return "must be at most 64 characters"
	}
	for _, c := range n {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' {
			return "may hold only letters, digits and hyphens"
		}
	}
	return ""
}

// updateRequest is the body of PUT/PATCH /v1/tracking-parcels/{id}: the
// recipient fields and external_data; absent fields stay as they are. The
// fields fixed at creation are named so that trying to change them is an
// error rather than silently ignored.
type updateRequest struct {
	RecipientName   *string         `json:"recipient_name" validate:"omitnil,max=255"`
	RecipientEmail  *string         `json:"recipient_email" validate:"omitnil,max=255"`
	RecipientPhone  *string         `json:"recipient_phone" validate:"omitnil,max=50"`
	ExternalData    json.RawMessage `json:"external_data"`
	TrackingNumber  json.RawMessage `json:"tracking_number"`
	ChannelID       json.RawMessage `json:"shipping_channel_id"`
	CheckDelayHours json.RawMessage `json:"check_delay_hours"`
	MaxChecks       json.RawMessage `json:"max_checks"`
	Status          json.RawMessage `json:"status"`
}

func (req updateRequest) check() (map[string]any, error) {
	errs := httpapi.Validate(req)
	if req.RecipientEmail != nil {
		// "" clears the address; anything else must be one.
		errs.Merge("", httpapi.Validate(struct {
			Email string `json:"recipient_email" validate:"omitempty,email"`
		}{strings.TrimSpace(*req.RecipientEmail)}))
	}
	for field, raw := range map[string]json.RawMessage{"tracking_number": req.TrackingNumber, "shipping_channel_id": req.ChannelID,
		"check_delay_hours": req.CheckDelayHours, "max_checks": req.MaxChecks, "status": req.Status} {
		if len(raw) > 0 {
			errs.Add(field, "cannot be changed; only recipient_name, recipient_email, recipient_phone and external_data can")
		}
	}
	external := httpapi.OptionalObject(req.ExternalData, "external_data", errs)
	return external, errs.Err()
}

func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}
