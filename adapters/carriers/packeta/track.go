package packeta

import (
	"context"
	"encoding/xml"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// statusRecord is the WSDL's StatusRecord [V].
type statusRecord struct {
	DateTime             string `xml:"dateTime"`
	StatusCode           string `xml:"statusCode"`
	CodeText             string `xml:"codeText"`
	StatusText           string `xml:"statusText"`
	BranchID             string `xml:"branchId"`
	DestinationBranchID  string `xml:"destinationBranchId"`
	ExternalTrackingCode string `xml:"externalTrackingCode"`
}

// Track reads a packet's history with packetTracking; a number Packeta
// answers PacketIdFault for, or one that is no Packeta barcode, is not
// recognized. Packeta reports no COD collection of its own, so no event sets
// CODCollected.
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	if err := checkPassword(s); err != nil {
		return carrier.Tracking{}, err
	}
	id, ok := packetID(req.TrackingNumber)
	if !ok {
		return carrier.Tracking{Recognized: false}, nil
	}
	base, err := c.base(s)
	if err != nil {
		return carrier.Tracking{}, err
	}
	res, err := c.call(ctx, base, packetIDCall{XMLName: xml.Name{Local: "packetTracking"}, APIPassword: s.String(settingPassword), PacketID: id})
	if f, ok := asFault(err); ok && f.Class == faultPacketID {
		return carrier.Tracking{Recognized: false}, nil
	}
	if f, ok := asFault(err); ok {
		return carrier.Tracking{}, faultRejection(f)
	}
	if err != nil {
		return carrier.Tracking{}, err
	}
	var history struct {
		Records []statusRecord `xml:"record"`
	}
	if err := res.decode(&history); err != nil {
		return carrier.Tracking{}, carrierhttp.Unavailable("packeta packetTracking: %v", err)
	}
	out := carrier.Tracking{Recognized: true}
	for _, r := range history.Records {
		out.Events = append(out.Events, event(r))
	}
	return out, nil
}

func event(r statusRecord) carrier.TrackingEvent {
	code := strings.TrimSpace(r.StatusCode)
	desc := strings.TrimSpace(r.StatusText)
	if desc == "" {
		desc = strings.TrimSpace(r.CodeText)
	}
	return carrier.TrackingEvent{
		Code:        code,
		Status:      Statuses.Status(code),
		Description: desc,
		At:          parseTime(r.DateTime),
	}
}

// prague is the zone of status times that name none [U].
var prague = func() *time.Location {
	if loc, err := time.LoadLocation("Europe/Prague"); err == nil {
		return loc
	}
	return time.FixedZone("CET", 3600)
}()

// parseTime reads an xsd:dateTime, with or without a zone.
func parseTime(v string) time.Time {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, v, prague); err == nil {
			return t
		}
	}
	return time.Time{}
}
