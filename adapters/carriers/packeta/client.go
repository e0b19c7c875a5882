package packeta

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"

	"shipd/adapters/carriers/internal/carrierhttp"
)

// The requests, element names as the WSDL's RPC messages name the method
// and its arguments [V]; each is the whole XML document sent.
type (
	packetIDCall struct { // packetStatus, packetTracking, cancelPacket
		XMLName     xml.Name
		APIPassword string `xml:"apiPassword"`
		PacketID    string `xml:"packetId"`
	}
	createPacket struct {
		XMLName     xml.Name         `xml:"createPacket"`
		APIPassword string           `xml:"apiPassword"`
		Attributes  packetAttributes `xml:"attributes"`
	}
	packetLabelPdf struct {
		XMLName     xml.Name `xml:"packetLabelPdf"`
		APIPassword string   `xml:"apiPassword"`
		PacketID    string   `xml:"packetId"`
		Format      string   `xml:"format"`
		Offset      int      `xml:"offset"`
	}
	packetLabelZpl struct {
		XMLName     xml.Name `xml:"packetLabelZpl"`
		APIPassword string   `xml:"apiPassword"`
		PacketID    string   `xml:"packetId"`
		DPI         int      `xml:"dpi"`
	}
	senderGetReturnRouting struct {
		XMLName     xml.Name `xml:"senderGetReturnRouting"`
		APIPassword string   `xml:"apiPassword"`
		Sender      string   `xml:"sender"`
	}
)

func xmlName(method string) xml.Name { return xml.Name{Local: method} }

// answer is Packeta's <response> [V].
type answer struct {
	XMLName xml.Name `xml:"response"`
	Status  string   `xml:"status"`
	Result  inner    `xml:"result"`
	Fault   string   `xml:"fault"`
	String  string   `xml:"string"`
	Detail  inner    `xml:"detail"`
}

// inner keeps an element's content to be decoded once its type is known.
type inner struct {
	XML []byte `xml:",innerxml"`
}

// decode reads the content as the element name's children into v.
func (in inner) decode(v any) error {
	doc := append(append([]byte("<x>"), in.XML...), "</x>"...)
	return xml.Unmarshal(doc, v)
}

// Fault is Packeta saying no: the fault class, its message and its
// structured detail. errors.go turns it into what the port expects.
type Fault struct {
	Method string
	Class  string
	Text   string
	Detail inner
}

func (f *Fault) Error() string {
	return fmt.Sprintf("packeta %s: %s: %s", f.Method, f.Class, f.Text)
}

// asFault is err's Packeta fault, when it is one.
func asFault(err error) (*Fault, bool) {
	var f *Fault
	ok := errors.As(err, &f)
	return f, ok
}

// call posts req to base and reads the answer: its <result> on status ok,
// a *Fault on status fault. What the carrier port calls unavailable (no
// answer, a timeout, 429, 5xx) wraps carrier.ErrUnavailable, as does an
// answer that is not Packeta's XML.
func (c *Carrier) call(ctx context.Context, base string, req any) (inner, error) {
	body, err := xml.Marshal(req)
	if err != nil {
		return inner{}, fmt.Errorf("packeta: encoding the request: %w", err)
	}
	method := rootName(body)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, base, bytes.NewReader(append([]byte(xml.Header), body...)))
	if err != nil {
		return inner{}, fmt.Errorf("packeta: %w", err)
	}
	hreq.Header.Set("Content-Type", "text/xml; charset=utf-8")
	res, err := carrierhttp.Do(c.cfg.HTTPClient, hreq)
	if err != nil {
		return inner{}, fmt.Errorf("packeta %s: %w", method, err)
	}
	var a answer
	if err := xml.Unmarshal(res.Body, &a); err != nil {
		return inner{}, carrierhttp.Unavailable("packeta %s: unreadable answer (HTTP %d): %v", method, res.Status, err)
	}
	switch a.Status {
	case "ok":
		return a.Result, nil
	case "fault":
		return inner{}, faultError(&Fault{Method: method, Class: a.Fault, Text: a.String, Detail: a.Detail})
	}
	return inner{}, carrierhttp.Unavailable("packeta %s: answer with status %q (HTTP %d)", method, a.Status, res.Status)
}

// rootName is the method a request document calls, for messages.
func rootName(doc []byte) string {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			return "?"
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local
		}
	}
}
