package dpdpl

// The fake's shipping day: packagesPickupCallV4 (INSERT and CANCEL; UPDATE
// is never sent), getCourierOrderAvailabilityV1 and generateProtocolV2, held
// to the schema like every call (schema_test.go). What DPD's business rules
// are is read from DPD Polska's own module [Vp] where it says (the customer,
// payer and sender blocks it requires, the window chosen from the
// availability ranges, CANCEL by number and checksum); the rest is the
// fake's reading, [U] like the adapter's: a Sunday refused, a window that
// must lie within a range, the status words of a refusal.

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"shipd/adapters/labels"
)

// fakeOrder is a courier order DPD holds.
type fakeOrder struct {
	number    string
	checkSum  int64
	date      string
	cancelled bool
	noCancel  bool // the courier is on the way: DPD no longer cancels it
}

// fakeRanges are the windows the fake offers at every Polish postal code
// but fakeNoRanges: "HH:MM-HH:MM" and the minutes before the start by which
// one must be ordered. The first one's deadline is the day before.
var fakeRanges = []struct {
	window string
	offset int
}{{"08:00-10:00", 600}, {"09:00-12:00", 90}, {"12:00-15:00", 120}, {"15:00-18:00", 180}}

const fakeNoRanges = "99999"

// pickupOrderCount is how many courier orders DPD made: what its records show.
func (f *fakeDPD) pickupOrderCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ordersMade
}

func (f *fakeDPD) order(number string) *fakeOrder {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.orders[number]
}

// pickupError is one errorDetailsPCRV2 the fake answers.
type pickupError struct{ code, fields, description string }

func (f *fakeDPD) pickupAnswer(w http.ResponseWriter, orderNumber string, checkSum int64, status string, errs []pickupError) {
	var b strings.Builder
	b.WriteString("<return>")
	if orderNumber != "" {
		fmt.Fprintf(&b, "<checkSum>%d</checkSum><orderNumber>%s</orderNumber>", checkSum, orderNumber)
	}
	b.WriteString("<statusInfo>")
	for _, e := range errs {
		fmt.Fprintf(&b, "<errorDetails><code>%s</code><description>%s</description><fields>%s</fields></errorDetails>", e.code, xmlText(e.description), e.fields)
	}
	fmt.Fprintf(&b, "<status>%s</status></statusInfo></return>", status)
	f.answer(w, packageNS, "packagesPickupCallV4", b.String())
}

func (f *fakeDPD) pickupCall(w http.ResponseWriter, op *xmlNode) {
	if !f.authorized(w, op) {
		return
	}
	p := op.child("dpdPickupParamsV3")
	switch p.text("operationType") {
	case "INSERT":
		f.insertPickup(w, p)
	case "CANCEL":
		f.cancelPickup(w, p)
	default:
		f.fault(w, "soap:Server", "operationType "+p.text("operationType")+" is not played by the fake", true)
	}
}

func (f *fakeDPD) insertPickup(w http.ResponseWriter, p *xmlNode) {
	var errs []pickupError
	need := func(path string) {
		if p.text(path) == "" {
			field := path[strings.LastIndex(path, "/")+1:]
			errs = append(errs, pickupError{"VALUE_EMPTY", field, "Pole " + field + " jest wymagane"})
		}
	}
	need("orderType")
	d := "pickupCallSimplifiedDetails/"
	for _, path := range []string{"pickupCustomer/customerFullName", "pickupCustomer/customerName", "pickupCustomer/customerPhone",
		"pickupSender/senderFullName", "pickupSender/senderName", "pickupSender/senderAddress", "pickupSender/senderCity",
		"pickupSender/senderPostalCode", "pickupSender/senderPhone"} {
		need(d + path)
	}
	if pc := p.text(d + "pickupSender/senderPostalCode"); pc != "" && (len(pc) != 5 || strings.Trim(pc, "0123456789") != "") {
		errs = append(errs, pickupError{"DONT_MATCH_PATTERN", "senderPostalCode", "Niepoprawny kod pocztowy " + pc})
	}
	if p.text(d+"pickupPayer/payerNumber") != f.masterFid {
		errs = append(errs, pickupError{"DISALLOWED_FID", "payerNumber", "Płatnik " + p.text(d+"pickupPayer/payerNumber") + " niedozwolony"})
	}
	pk := d + "packagesParams/"
	count, _ := strconv.Atoi(p.text(pk + "parcelsCount"))
	weight, _ := strconv.ParseFloat(p.text(pk+"parcelsWeight"), 64)
	if p.text(pk+"standardParcel") != "true" || count <= 0 {
		errs = append(errs, pickupError{"VALUE_EMPTY", "parcelsCount", "Brak paczek do odbioru"})
	}
	if weight <= 0 {
		errs = append(errs, pickupError{"VALUE_EMPTY", "parcelsWeight", "Brak wagi paczek"})
	}
	day, err := time.Parse(time.DateOnly, p.text("pickupDate"))
	switch {
	case err != nil:
		errs = append(errs, pickupError{"DONT_MATCH_PATTERN", "pickupDate", "Niepoprawna data " + p.text("pickupDate")})
	case day.Weekday() == time.Sunday:
		errs = append(errs, pickupError{"INCORRECT_PICKUP_DATE", "pickupDate", "Kurier nie odbiera przesyłek w niedzielę"})
	}
	if !fakeInRange(p.text("pickupTimeFrom"), p.text("pickupTimeTo")) {
		errs = append(errs, pickupError{"INCORRECT_TIME_RANGE", "pickupTimeFrom", "Przedział " + p.text("pickupTimeFrom") + "-" + p.text("pickupTimeTo") + " jest niedostępny"})
	}
	if len(errs) > 0 {
		f.pickupAnswer(w, "", 0, "INCORRECT_DATA", errs)
		return
	}
	f.mu.Lock()
	f.serial++
	o := &fakeOrder{number: day.Format("20060102") + strconv.Itoa(f.serial), checkSum: int64(f.serial*7919%99991) + 1, date: p.text("pickupDate")}
	f.orders[o.number] = o
	f.ordersMade++
	f.mu.Unlock()
	f.pickupAnswer(w, o.number, o.checkSum, "OK", nil)
}

// fakeInRange: from-to lies within one of fakeRanges.
func fakeInRange(from, to string) bool {
	a, errA := clock(from)
	b, errB := clock(to)
	if errA != nil || errB != nil || b <= a {
		return false
	}
	for _, r := range fakeRanges {
		rf, rt, _ := strings.Cut(r.window, "-")
		x, _ := clock(rf)
		y, _ := clock(rt)
		if a >= x && b <= y {
			return true
		}
	}
	return false
}

func (f *fakeDPD) cancelPickup(w http.ResponseWriter, p *xmlNode) {
	if p.child("pickupCallSimplifiedDetails") != nil || p.text("pickupDate") != "" {
		f.fault(w, "soap:Client", "a CANCEL carries the order's number and checksum only", true)
		return
	}
	f.mu.Lock()
	o := f.orders[p.text("orderNumber")]
	status, errs := "OK", []pickupError(nil)
	switch {
	case o == nil:
		status, errs = "NOT_FOUND", []pickupError{{"NOT_FOUND", "orderNumber", "Nie znaleziono zlecenia " + p.text("orderNumber")}}
	case p.text("checkSum") != strconv.FormatInt(o.checkSum, 10):
		status, errs = "INCORRECT_DATA", []pickupError{{"INCORRECT_CHECKSUM", "checkSum", "Niepoprawna suma kontrolna"}}
	case o.cancelled:
		status, errs = "INCORRECT_DATA", []pickupError{{"ALREADY_CANCELLED", "orderNumber", "Zlecenie jest już anulowane"}}
	case o.noCancel:
		status, errs = "INCORRECT_DATA", []pickupError{{"CANCEL_NOT_POSSIBLE", "", "Kurier jest w drodze, zlecenia nie można anulować"}}
	default:
		o.cancelled = true
	}
	f.mu.Unlock()
	f.pickupAnswer(w, "", 0, status, errs)
}

func (f *fakeDPD) courierAvailability(w http.ResponseWriter, op *xmlNode) {
	if !f.authorized(w, op) {
		return
	}
	zip := op.text("senderPlaceV1/zipCode")
	if op.text("senderPlaceV1/countryCode") != "PL" || len(zip) != 5 || zip == fakeNoRanges {
		f.answer(w, packageNS, "getCourierOrderAvailabilityV1", "<return><status>"+rangeNotFound+"</status></return>")
		return
	}
	var b strings.Builder
	b.WriteString("<return>")
	for _, r := range fakeRanges {
		fmt.Fprintf(&b, "<ranges><offset>%d</offset><range>%s</range></ranges>", r.offset, r.window)
	}
	b.WriteString("<status>OK</status></return>")
	f.answer(w, packageNS, "getCourierOrderAvailabilityV1", b.String())
}

// generateProtocol lists the waybills on a protocol, a handover document
// drawn by shipd's renderer with every waybill as a barcode: a real PDF a
// test reads back. With STOP_ON_FIRST_ERROR any parcel refused leaves no
// protocol.
func (f *fakeDPD) generateProtocol(w http.ResponseWriter, op *xmlNode) {
	if !f.authorized(w, op) {
		return
	}
	params := op.child("dpdServicesParamsV1")
	session := params.child("session")
	sessionType := session.text("sessionType")
	status := "OK"
	if op.text("outputDocFormatV1") != "PDF" || params.text("policy") != "STOP_ON_FIRST_ERROR" {
		status = "NOT_PROCESSED" // the fake prints PDF and stops on errors only
	}
	if a := params.child("pickupAddress"); a != nil && a.text("fid") != f.masterFid {
		status = "INCORRECT_PICKUP_ADDRESS_FID"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var parcelsXML strings.Builder
	var doc labels.HandoverDocument
	n := 0
	for _, pkg := range session.all("packages") {
		var hs labels.HandoverShipment
		fmt.Fprintf(&parcelsXML, "<packages>")
		for _, p := range pkg.all("parcels") {
			n++
			fp, st := f.parcels[p.text("waybill")], "OK"
			switch {
			case fp == nil:
				st = "NOT_FOUND"
			case (fp.country == "PL") != (sessionType == "DOMESTIC"):
				st = wrongSessionType
			case fp.advised != "":
				st = "ALREADY_ADVICED"
			default:
				hs.Recipient = labels.Party{Name: fp.label.Recipient.Name, PostalCode: fp.label.Recipient.PostalCode,
					City: fp.label.Recipient.City, CountryCode: fp.label.Recipient.CountryCode}
				hs.Parcels = append(hs.Parcels, labels.HandoverParcel{TrackingNumber: fp.waybill, WeightKG: fp.kg})
			}
			if st != "OK" && status == "OK" {
				status = st
			}
			fmt.Fprintf(&parcelsXML, "<parcels><statusInfo><status>%s</status></statusInfo><waybill>%s</waybill></parcels>", st, xmlText(p.text("waybill")))
		}
		parcelsXML.WriteString("</packages>")
		doc.Shipments = append(doc.Shipments, hs)
	}
	if n > f.protocolLimit && status == "OK" {
		status = "PARCEL_LIMIT_EXCEEDED"
	}
	data, docID := "", ""
	if status == "OK" {
		f.protocols++
		docID = fmt.Sprintf("PROT-%d", f.protocols)
		for _, hs := range doc.Shipments {
			for _, p := range hs.Parcels {
				f.parcels[p.TrackingNumber].advised = docID
			}
		}
		doc.Carrier, doc.ChannelName, doc.ManifestID = "DPD Polska", "dpdservices "+sessionType, docID
		doc.Date = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
		doc.Sender = labels.Party{Name: params.text("pickupAddress/name"), Company: params.text("pickupAddress/company"),
			Street: params.text("pickupAddress/address"), PostalCode: params.text("pickupAddress/postalCode"),
			City: params.text("pickupAddress/city"), CountryCode: params.text("pickupAddress/countryCode")}
		if doc.Sender.Name == "" && doc.Sender.Company == "" {
			doc.Sender = labels.Party{Company: "FID " + f.masterFid, CountryCode: "PL"} // DPD's record of the customer
		}
		pdf, err := labels.RenderHandover(doc)
		if err != nil {
			f.t.Fatalf("%s fake: drawing a protocol: %v", f.name, err)
		}
		data = "<documentData>" + base64.StdEncoding.EncodeToString(pdf) + "</documentData><documentId>" + docID + "</documentId>"
	}
	f.answer(w, packageNS, "generateProtocolV2", fmt.Sprintf("<return>%s<session>%s<statusInfo><status>%s</status><description>%s</description></statusInfo></session></return>",
		data, parcelsXML.String(), status, strings.ToLower(strings.ReplaceAll(status, "_", " "))))
}
