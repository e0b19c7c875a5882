package packeta

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Labels prints one label per packet, in parcel order: packetLabelPdf in
// the channel's page format (pdfLabelFormat, default "A6 on A6", offset 0)
// or packetLabelZpl [V]. Packeta prints no EPL.
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	if err := checkPassword(s); err != nil {
		return nil, err
	}
	format = s.LabelFormat(format)
	if !contains(labelFormats, format) {
		return nil, carrier.Reject("label_format", "Packeta prints pdf or zpl labels, not %s", format)
	}
	page := strings.TrimSpace(s.String(settingPDFFormat))
	if page == "" {
		page = defaultPDFFormat
	}
	base, err := c.base(s)
	if err != nil {
		return nil, err
	}
	packets, err := packetsOf(ref)
	if err != nil {
		return nil, err
	}
	out := make([]carrier.Label, 0, len(packets))
	for _, p := range packets {
		data, err := c.label(ctx, base, s, p.id, format, page)
		if f, ok := asFault(err); ok {
			r := faultRejection(f)
			r.Message = "packet " + p.barcode + ": " + r.Message
			if f.Class == "UnknownLabelFormatFault" {
				r.Field = settingPDFFormat
			}
			return nil, r
		}
		if err != nil {
			return nil, err
		}
		out = append(out, carrier.Label{Format: format, Data: data})
	}
	return out, nil
}

// label is one packet's label file.
func (c *Carrier) label(ctx context.Context, base string, s carrier.Settings, id, format, page string) ([]byte, error) {
	password := s.String(settingPassword)
	if format == "zpl" {
		res, err := c.call(ctx, base, packetLabelZpl{APIPassword: password, PacketID: id, DPI: zplDPI})
		if err != nil {
			return nil, err
		}
		return zplText(res)
	}
	res, err := c.call(ctx, base, packetLabelPdf{APIPassword: password, PacketID: id, Format: page, Offset: 0})
	if err != nil {
		return nil, err
	}
	var b64 string
	if err := res.decode(&struct {
		Text *string `xml:",chardata"`
	}{&b64}); err != nil {
		return nil, carrierhttp.Unavailable("packeta packetLabelPdf: %v", err)
	}
	pdf, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b64), ""))
	if err != nil || !strings.HasPrefix(string(pdf), "%PDF") {
		return nil, carrierhttp.Unavailable("packeta packetLabelPdf: the result is not a base64 PDF")
	}
	return pdf, nil
}

// zplText is packetLabelZpl's result, an xsd:string holding the ZPL program
// [V]; a base64 form of it is read too [U].
func zplText(res inner) ([]byte, error) {
	var text string
	if err := res.decode(&struct {
		Text *string `xml:",chardata"`
	}{&text}); err != nil {
		return nil, carrierhttp.Unavailable("packeta packetLabelZpl: %v", err)
	}
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "^XA") || strings.HasPrefix(text, "~") {
		return []byte(text + "\n"), nil
	}
	if b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), "")); err == nil && strings.Contains(string(b), "^XA") {
		return b, nil
	}
	return nil, fmt.Errorf("%w: packeta packetLabelZpl: the result is not a ZPL program", carrier.ErrUnavailable)
}
