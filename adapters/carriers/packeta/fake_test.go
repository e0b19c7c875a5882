package packeta

// A fake of Packeta's REST/XML API on loopback HTTP: one endpoint taking a
// POSTed XML document whose root is the method, answering <response> with
// status ok and a result, or status fault with the fault class, its message
// and detail [V: zasilkovna.cz/popis-api]. Every request is checked against
// the strict schema of schema_test.go (transcribed from Packeta's WSDL) and
// so is every answer the fake gives; a request the schema refuses fails the
// test, since the adapter must never send one. What a user can cause (an
// unknown pickup point, a parcel too heavy for its point, a wrong password)
// is answered as Packeta answers it: a fault the method declares.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd/adapters/labels"
)

const fakePath = "/api/rest"

type fakePacket struct {
	id, barcode string
	attrs       *node
	cancelled   bool
	moving      bool // handed over: Packeta no longer lets it be cancelled
	records     []*node
}

type fakePacketa struct {
	t   *testing.T
	srv *httptest.Server

	mu           sync.Mutex
	password     string
	senders      map[string]bool
	points       map[string]float64 // pickup point id → heaviest packet it takes (kg)
	homeCarriers map[string]bool
	packets      map[string]*fakePacket
	order        []string // packet ids in creation order
	nextID       int64
	calls        []string // method names, in order
	bodies       []*node
	failStatus   int    // answer this HTTP status …
	failCount    int    // … this many times (-1: always) …
	failOn       string // … to the methods it begins ("" = all, "packetLabel" both label methods)
	hang         bool
}

func newFake(t *testing.T) *fakePacketa {
	f := &fakePacketa{t: t, password: "0123456789abcdef0123456789abcdef",
		senders:      map[string]bool{"shop-1": true},
		points:       map[string]float64{"4307": 10, "1234": 5},
		homeCarriers: map[string]bool{"106": true},
		packets:      map[string]*fakePacket{}, nextID: 4200000001}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakePacketa) url() string { return f.srv.URL + fakePath }

func (f *fakePacketa) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// live are the packets not cancelled, in creation order.
func (f *fakePacketa) live() []*fakePacket {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*fakePacket
	for _, id := range f.order {
		if p := f.packets[id]; !p.cancelled {
			out = append(out, p)
		}
	}
	return out
}

func (f *fakePacketa) packet(barcode string) *fakePacket {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.packets {
		if p.barcode == barcode {
			return p
		}
	}
	return nil
}

// fail makes the next n calls of the methods beginning with method ("" any)
// answer status.
func (f *fakePacketa) fail(method string, status, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failOn, f.failStatus, f.failCount = method, status, n
}

func (f *fakePacketa) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != fakePath {
		f.t.Errorf("fake: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "text/xml" && mt != "application/xml" {
		f.t.Errorf("fake: content type %q", r.Header.Get("Content-Type"))
	}
	if r.Header.Get("Authorization") != "" {
		f.t.Error("fake: Packeta takes the password in the body; an Authorization header leaks it twice")
	}
	body, _ := io.ReadAll(r.Body)
	doc, err := parseXML(body)
	if err != nil {
		f.t.Errorf("fake: the request is not well-formed XML: %v\n%s", err, body)
		http.Error(w, "bad xml", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, doc.name)
	f.bodies = append(f.bodies, doc)
	hang := f.hang
	status := 0
	if f.failCount != 0 && strings.HasPrefix(doc.name, f.failOn) {
		status = f.failStatus
		if f.failCount > 0 {
			f.failCount--
		}
	}
	f.mu.Unlock()
	if hang {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
			f.t.Errorf("fake: the client did not give up on %s", doc.name)
		}
		return
	}
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	m, ok := wsdlMethods[doc.name]
	if !ok {
		f.t.Errorf("fake: %s is no method the fake serves", doc.name)
		http.Error(w, "unknown method", http.StatusBadRequest)
		return
	}
	if problems := validateSeq(doc, m.parts, doc.name); len(problems) > 0 {
		f.t.Errorf("fake: %s refused by the WSDL schema:\n%v", doc.name, problems)
		http.Error(w, "schema", http.StatusBadRequest)
		return
	}
	if doc.value("apiPassword") != f.password {
		f.fault(w, doc.name, "IncorrectApiPasswordFault", "Incorrect API password.", nil)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch doc.name {
	case "createPacket":
		f.createPacket(w, doc.kid("attributes"))
	case "cancelPacket":
		f.cancelPacket(w, doc.value("packetId"))
	case "packetStatus", "packetTracking":
		f.status(w, doc.name, doc.value("packetId"))
	case "packetLabelPdf", "packetLabelZpl":
		f.label(w, doc)
	case "senderGetReturnRouting":
		if !f.senders[doc.value("sender")] {
			f.fault(w, doc.name, "SenderNotExists", "Sender '"+doc.value("sender")+"' does not exist.", nil)
			return
		}
		f.ok(w, doc.name, el("result", tx("routingSegment", "A1"), tx("routingSegment", "B2")))
	}
}

// ok answers status ok with result (its children, or its text), checked
// against the method's result type.
func (f *fakePacketa) ok(w http.ResponseWriter, method string, result *node) {
	typ := wsdlMethods[method].result
	if typ == "" {
		typ = "empty"
	}
	if result == nil {
		result = el("result")
	}
	if problems := validate(result, typ, method+"/result"); len(problems) > 0 {
		f.t.Errorf("fake: its own %s answer breaks the WSDL schema: %v", method, problems)
	}
	f.write(w, el("response", tx("status", "ok"), result))
}

// fault answers status fault with one of the method's declared faults.
func (f *fakePacketa) fault(w http.ResponseWriter, method, class, text string, detail *node) {
	if !slices.Contains(wsdlMethods[method].faults, class) {
		f.t.Errorf("fake: %s declares no %s", method, class)
	}
	if detail == nil {
		detail = el("detail")
	}
	typ := "empty"
	if class == "PacketAttributesFault" {
		typ = class
	}
	if problems := validate(detail, typ, method+"/detail"); len(problems) > 0 {
		f.t.Errorf("fake: its own %s detail breaks the WSDL schema: %v", class, problems)
	}
	f.write(w, el("response", tx("status", "fault"), tx("fault", class), tx("string", text), detail))
}

func (f *fakePacketa) write(w http.ResponseWriter, doc *node) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	doc.write(&b)
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// attributeFault is the detail of a PacketAttributesFault.
func attributeFault(faults ...[2]string) *node {
	attrs := el("attributes")
	for _, fl := range faults {
		attrs.kids = append(attrs.kids, el("fault", tx("name", fl[0]), tx("fault", fl[1])))
	}
	return el("detail", attrs)
}

var fakePhone = regexp.MustCompile(`^\+?[0-9]{9,15}$`)

// createPacket refuses what Packeta refuses of a valid document: an
// unknown addressId, a packet too heavy for its point, a home delivery
// without an address, a malformed phone, COD without a currency.
func (f *fakePacketa) createPacket(w http.ResponseWriter, a *node) {
	var faults [][2]string
	addressID := a.value("addressId")
	weight, _ := strconv.ParseFloat(a.value("weight"), 64)
	switch max, point := f.points[addressID]; {
	case point:
		if weight > max {
			faults = append(faults, [2]string{"weight", fmt.Sprintf("Weight %s kg exceeds the limit of the pickup point (%g kg).", a.value("weight"), max)})
		}
	case f.homeCarriers[addressID]:
		for _, k := range []string{"street", "city", "zip"} {
			if a.value(k) == "" {
				faults = append(faults, [2]string{k, "Required for address delivery."})
			}
		}
	default:
		faults = append(faults, [2]string{"addressId", "Pickup point or carrier with id " + addressID + " does not exist."})
	}
	if p := a.value("phone"); p != "" && !fakePhone.MatchString(p) {
		faults = append(faults, [2]string{"phone", "Invalid phone number format."})
	}
	if a.value("cod") != "" && a.value("currency") == "" {
		faults = append(faults, [2]string{"currency", "Currency is required with cash on delivery."})
	}
	if len(faults) > 0 {
		f.fault(w, "createPacket", "PacketAttributesFault", "Packet attributes are not valid.", attributeFault(faults...))
		return
	}
	id := strconv.FormatInt(f.nextID, 10)
	f.nextID++
	p := &fakePacket{id: id, barcode: "Z" + id, attrs: a}
	p.records = append(p.records, statusNode(1, "received data", "We have received the packet data."))
	f.packets[id] = p
	f.order = append(f.order, id)
	f.ok(w, "createPacket", el("result", tx("id", id), tx("barcode", p.barcode),
		tx("barcodeText", "Z "+id[:3]+" "+id[3:7]+" "+id[7:])))
}

func statusNode(code int, text, desc string) *node {
	return el("record", tx("dateTime", time.Now().UTC().Format("2006-01-02T15:04:05")),
		tx("statusCode", strconv.Itoa(code)), tx("codeText", text), tx("statusText", desc),
		tx("branchId", "4307"), tx("destinationBranchId", "0"), tx("externalTrackingCode", ""))
}

// move records a status of the packet (a scan at Packeta).
func (f *fakePacketa) move(barcode string, code int, text, desc string) {
	p := f.packet(barcode)
	f.mu.Lock()
	defer f.mu.Unlock()
	p.records = append(p.records, statusNode(code, text, desc))
	p.moving = p.moving || code != 1
}

// cancelPacket cancels a packet not yet on its way. A cancelled packet is
// answered PacketIdFault, as one Packeta does not know (Packeta documents
// no fault of its own for it [U]; the adapter reads the packet's tracking,
// not the fault).
func (f *fakePacketa) cancelPacket(w http.ResponseWriter, id string) {
	p, ok := f.packets[id]
	switch {
	case !ok || p.cancelled:
		f.fault(w, "cancelPacket", "PacketIdFault", "Packet with id "+id+" not found.", nil)
	case p.moving:
		f.fault(w, "cancelPacket", "CancelNotAllowedFault", "Packet is already on its way and cannot be cancelled.", nil)
	default:
		p.cancelled = true
		p.records = append(p.records, statusNode(11, "cancelled", "Packet has been cancelled."))
		f.ok(w, "cancelPacket", nil)
	}
}

func (f *fakePacketa) status(w http.ResponseWriter, method, id string) {
	p, ok := f.packets[id]
	if !ok {
		f.fault(w, method, "PacketIdFault", "Packet with id "+id+" not found.", nil)
		return
	}
	if method == "packetTracking" {
		f.ok(w, method, el("result", p.records...))
		return
	}
	last := p.records[len(p.records)-1]
	current := el("result", last.kids...)
	current.kids = append(slices.Clone(current.kids), tx("isReturning", "false"), tx("storedUntil", ""),
		tx("carrierId", ""), tx("carrierName", ""))
	f.ok(w, method, current)
}

var fakePDFFormats = []string{"A6 on A6", "A6 on A4", "A7 on A7", "A7 on A4", "105x35mm on A4", "A8 on A8"}

// label renders the packet's label for real (adapters/labels).
func (f *fakePacketa) label(w http.ResponseWriter, doc *node) {
	p, ok := f.packets[doc.value("packetId")]
	if !ok {
		f.fault(w, doc.name, "PacketIdFault", "Packet with id "+doc.value("packetId")+" not found.", nil)
		return
	}
	format := "pdf"
	if doc.name == "packetLabelZpl" {
		format = "zpl"
		if dpi := doc.value("dpi"); dpi != "203" && dpi != "300" {
			f.fault(w, doc.name, "UnknownLabelFormatFault", "Unknown dpi "+dpi+".", nil)
			return
		}
	} else if !slices.Contains(fakePDFFormats, doc.value("format")) {
		f.fault(w, doc.name, "UnknownLabelFormatFault", "Unknown label format '"+doc.value("format")+"'.", nil)
		return
	}
	a := p.attrs
	data, err := labels.Render(format, labels.ParcelLabel{
		Carrier: "Packeta", Product: "Z-Point " + a.value("addressId"), TrackingNumber: p.barcode,
		Recipient:   labels.Party{Name: a.value("name") + " " + a.value("surname"), Street: a.value("street"), City: a.value("city")},
		ParcelIndex: 1, ParcelCount: 1, Weight: a.value("weight") + " KG", Reference: a.value("number"), COD: a.value("cod"),
	})
	if err != nil {
		f.t.Errorf("fake: rendering %s: %v", p.barcode, err)
		return
	}
	if format == "pdf" {
		f.ok(w, doc.name, tx("result", base64.StdEncoding.EncodeToString(data)))
		return
	}
	f.ok(w, doc.name, tx("result", string(data)))
}
