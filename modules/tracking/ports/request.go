package ports

import (
	"encoding/json"

	"shipd/modules/tracking/domain"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// The request bodies carry what the domain checks (domain.Request, and
// Parcel.Edit's fields); the port only reads them. A body whose shape is
// wrong somewhere is answered with that and the domain's verdict on the
// rest (httpapi.Refusal).

// createRequest is the body of POST /v1/tracking-parcels.
type createRequest struct {
	TrackingNumber    string          `json:"tracking_number"`
	ShippingChannelID string          `json:"shipping_channel_id"`
	RecipientName     string          `json:"recipient_name"`
	RecipientEmail    string          `json:"recipient_email"`
	RecipientPhone    string          `json:"recipient_phone"`
	CheckDelayHours   *int            `json:"check_delay_hours"`
	MaxChecks         *int            `json:"max_checks"`
	ExternalData      json.RawMessage `json:"external_data"`
}

// request reads the body into the domain's request; an error is a body
// whose shape is wrong, with the domain's verdict on the rest.
func (req createRequest) request() (domain.Request, error) {
	shape := fault.FieldErrors{}
	r := domain.Request{
		TrackingNumber: req.TrackingNumber, ChannelID: req.ShippingChannelID,
		Recipient:       domain.Recipient{Name: req.RecipientName, Email: req.RecipientEmail, Phone: req.RecipientPhone},
		CheckDelayHours: req.CheckDelayHours, MaxChecks: req.MaxChecks,
		ExternalData: httpapi.OptionalObject(req.ExternalData, "external_data", shape),
	}
	if len(shape) > 0 {
		return r, httpapi.Refusal(shape, r.Check())
	}
	return r, nil
}

// updateRequest is the body of PUT/PATCH /v1/tracking-parcels/{id}: the
// recipient fields and external_data; absent fields stay as they are. The
// fields fixed at creation are named so that trying to change them is an
// error rather than silently ignored.
type updateRequest struct {
	RecipientName   *string         `json:"recipient_name"`
	RecipientEmail  *string         `json:"recipient_email"`
	RecipientPhone  *string         `json:"recipient_phone"`
	ExternalData    json.RawMessage `json:"external_data"`
	TrackingNumber  json.RawMessage `json:"tracking_number"`
	ChannelID       json.RawMessage `json:"shipping_channel_id"`
	CheckDelayHours json.RawMessage `json:"check_delay_hours"`
	MaxChecks       json.RawMessage `json:"max_checks"`
	Status          json.RawMessage `json:"status"`
}

// externalData reads external_data; an error is a body that names a field
// an edit cannot change or whose shape is wrong, with the domain's verdict
// on the rest.
func (req updateRequest) externalData() (map[string]any, error) {
	shape := fault.FieldErrors{}
	for field, raw := range map[string]json.RawMessage{"tracking_number": req.TrackingNumber, "shipping_channel_id": req.ChannelID,
		"check_delay_hours": req.CheckDelayHours, "max_checks": req.MaxChecks, "status": req.Status} {
		if len(raw) > 0 {
			shape.Add(field, "cannot be changed; only recipient_name, recipient_email, recipient_phone and external_data can")
		}
	}
	external := httpapi.OptionalObject(req.ExternalData, "external_data", shape)
	if len(shape) > 0 {
		return nil, httpapi.Refusal(shape, domain.CheckEdit(req.RecipientName, req.RecipientEmail, req.RecipientPhone, external))
	}
	return external, nil
}
