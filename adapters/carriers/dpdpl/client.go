package dpdpl

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// soapNS is SOAP 1.1's envelope namespace: the WSDL binds soap (1.1).
const soapNS = "http://schemas.xmlsoap.org/soap/envelope/"

// authData is authDataV1 of dpdservices: every body carries it.
type authData struct {
	Login     string `xml:"login"`
	MasterFid int64  `xml:"masterFid"`
	Password  string `xml:"password"`
}

// authOf reads the credentials; a masterFid that is not a number is refused
// before any call (the schema types it xsd:int).
func authOf(s carrier.Settings) (authData, error) {
	fid, err := fidOf(s.String("masterFid"))
	if err != nil {
		return authData{}, carrier.Reject("masterFid", "must be DPD's numeric master FID: %v", err)
	}
	return authData{Login: s.String("login"), MasterFid: fid, Password: s.String("password")}, nil
}

func fidOf(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive number", s)
	}
	return n, nil
}

// operation is a request body: the wrapper element of one WSDL operation.
type operation interface{ operationName() string }

// call sends req as the body of a SOAP envelope to url and decodes the
// wrapper element answered into out. The wrapper goes out prefixed with ns
// and its children unqualified, as document/literal wrapped with an
// unqualified local schema wants them.
func (c *Carrier) call(ctx context.Context, url, ns string, req operation, out any) error {
	inner, err := xml.Marshal(req)
	if err != nil {
		return err
	}
	op := req.operationName()
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	fmt.Fprintf(&buf, `<soapenv:Envelope xmlns:soapenv=%q xmlns:dpd=%q><soapenv:Header/><soapenv:Body>`, soapNS, ns)
	buf.Write(inner)
	buf.WriteString(`</soapenv:Body></soapenv:Envelope>`)

	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &buf)
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "text/xml; charset=utf-8")
	hreq.Header.Set("SOAPAction", `""`) // the binding's soapAction is empty
	status, body, err := c.send(hreq, op)
	if err != nil {
		return err
	}
	env, err := readEnvelope(body)
	if err != nil {
		if status >= 500 {
			return carrierhttp.Unavailable("%s: HTTP %d: %s", op, status, carrierhttp.Snippet(body))
		}
		return fmt.Errorf("dpd_pl: %s: HTTP %d, unreadable answer: %v", op, status, err)
	}
	if env.Body.Fault != nil {
		return env.Body.Fault
	}
	if status != http.StatusOK {
		return fmt.Errorf("dpd_pl: %s: unexpected HTTP %d: %s", op, status, carrierhttp.Snippet(body))
	}
	if err := xml.Unmarshal(env.Body.Inner, out); err != nil {
		return fmt.Errorf("dpd_pl: %s: reading the answer: %w", op, err)
	}
	return nil
}

// send posts the envelope. JAX-WS answers a SOAP fault with HTTP 500, which
// is DPD refusing the call, not DPD being down, so such an answer comes
// back to be read; no answer, a timeout, a 429 and every other 5xx are
// unavailable.
func (c *Carrier) send(req *http.Request, op string) (int, []byte, error) {
	res, err := carrierhttp.DoAnswering(c.cfg.HTTPClient, req, func(status int, body []byte) bool {
		return status == http.StatusInternalServerError && isFault(body)
	})
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", op, err)
	}
	return res.Status, res.Body, nil
}

// envelope is a SOAP answer: a fault, or the operation's response wrapper.
type envelope struct {
	XMLName xml.Name `xml:"http://schemas.xmlsoap.org/soap/envelope/ Envelope"`
	Body    struct {
		Fault *soapFault `xml:"http://schemas.xmlsoap.org/soap/envelope/ Fault"`
		Inner []byte     `xml:",innerxml"`
	} `xml:"http://schemas.xmlsoap.org/soap/envelope/ Body"`
}

func readEnvelope(body []byte) (envelope, error) {
	var env envelope
	err := xml.Unmarshal(body, &env)
	return env, err
}

func isFault(body []byte) bool {
	env, err := readEnvelope(body)
	return err == nil && env.Body.Fault != nil
}

// soapFault is a SOAP 1.1 fault; DPD's detail is a DPDServiceException
// {exceptionDate, message} [C].
type soapFault struct {
	Code   string `xml:"faultcode"`
	String string `xml:"faultstring"`
	Detail struct {
		Exceptions []struct {
			XMLName xml.Name
			Message string `xml:"message"`
		} `xml:",any"`
	} `xml:"detail"`
}

func (f *soapFault) Error() string { return "dpd_pl: SOAP fault: " + f.message() }

// message is the exception's message, else the faultstring.
func (f *soapFault) message() string {
	for _, e := range f.Detail.Exceptions {
		if m := strings.TrimSpace(e.Message); m != "" {
			return m
		}
	}
	if s := strings.TrimSpace(f.String); s != "" {
		return s
	}
	return "fault " + f.Code
}

// exception is the local name of the fault's detail element
// (DPDServiceException, SchemaValidationException…), "" when none.
func (f *soapFault) exception() string {
	for _, e := range f.Detail.Exceptions {
		return e.XMLName.Local
	}
	return ""
}

func asFault(err error) (*soapFault, bool) {
	var f *soapFault
	ok := errors.As(err, &f)
	return f, ok
}
