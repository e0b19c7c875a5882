package dhlparcelde

import (
	"encoding/csv"
	"os"
	"strings"
	"testing"

	"shipd/platform/carrier"
)

// wantStatus is the standard status of every DHL code: Unified statusCode,
// TTpro and ICE; "" means deliberately unmapped.
var wantStatus = map[string]carrier.TrackingStatus{
	// Unified
	"pre-transit": "waiting_for_shipment", "transit": "in_transit", "delivered": "delivered", "failure": "delivery_failed", "unknown": "",
	// TTpro
	"VA": "waiting_for_shipment", "DD": "", "AE": "in_transit", "AN": "on_hold", "ES": "in_transit", "AA": "in_transit",
	"EE": "in_transit", "NB": "in_transit", "LA": "on_hold", "ZO": "in_transit", "PO": "out_for_delivery",
	"ZF": "ready_for_pickup", "ZU": "delivered", "ZN": "delivery_failed", "BV": "on_hold", "GT": "",
	// ICE
	"ADVIS": "", "ALERT": "", "ASMVT": "in_transit", "CANCL": "cancelled", "CHECK": "", "CNFSC": "on_hold",
	"CNRFC": "ready_for_pickup", "DLVRD": "delivered", "DLVRF": "delivery_failed", "DMGDS": "on_hold",
	"DSPSD": "delivered_with_exception", "DTNPC": "on_hold", "EXPHD": "on_hold", "FWDCF": "in_transit",
	"HLDCC": "ready_for_pickup", "HLDCP": "on_hold", "HLDCU": "on_hold", "HNDDE": "in_transit", "HNDND": "in_transit",
	"ICPRC": "in_transit", "INFCL": "in_transit", "ITBAR": "in_transit", "LDEXC": "on_hold", "LDTHU": "in_transit",
	"LDTMV": "in_transit", "MSRTD": "on_hold", "MVARR": "in_transit", "MVDEX": "on_hold", "MVDPT": "in_transit",
	"MVTEX": "on_hold", "NTADT": "on_hold", "NTDEL": "delivery_failed", "NTPUP": "on_hold", "OFWRD": "in_transit",
	"PARCV": "waiting_for_shipment", "PBNDT": "on_hold", "PCKDU": "in_transit", "PMTCR": "", "PMTCS": "",
	"PURCR": "waiting_for_shipment", "RCCLS": "delivery_failed", "RELBL": "in_transit", "REPCK": "in_transit",
	"RETRN": "returned", "ROUCR": "in_transit", "RSDCP": "in_transit", "SECHK": "in_transit", "SHRCU": "in_transit",
	"SRTED": "in_transit", "STORN": "", "TRBCR": "in_transit", "ULFMV": "in_transit",
}

// DHL's ICE event and TTpro codes (the first and third columns of the CSV in
// testdata), written out too so that each stays checked against the table
// whatever the CSV copy holds.
const (
	iceEvents  = "ADVIS ALERT ASMVT CANCL CHECK CNFSC CNRFC DLVRD DLVRF DMGDS DSPSD DTNPC EXPHD FWDCF HLDCC HLDCP HLDCU HNDDE HNDND ICPRC INFCL ITBAR LDEXC LDTHU LDTMV MSRTD MVARR MVDEX MVDPT MVTEX NTADT NTDEL NTPUP OFWRD PARCV PBNDT PCKDU PMTCR PMTCS PURCR RCCLS RELBL REPCK RETRN ROUCR RSDCP SECHK SHRCU SRTED STORN TRBCR ULFMV"
	ttproCodes = "VA DD AE AN ES AA EE NB LA ZO PO ZF ZU ZN BV GT"
)

func TestStatusTableCoversEveryDHLCode(t *testing.T) {
	codes := map[string]bool{"pre-transit": true, "transit": true, "delivered": true, "failure": true, "unknown": true}
	for _, c := range strings.Fields(iceEvents + " " + ttproCodes) {
		codes[c] = true
	}
	f, err := os.Open("testdata/parcel_de_ice_event_ric_combinations_July_2024.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = ';'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		codes[row[0]] = true // ICE event
		codes[row[2]] = true // TTpro event
	}
	if len(codes) != 5+52+16 {
		t.Errorf("%d distinct codes, want 73 (5 Unified, 52 ICE, 16 TTpro)", len(codes))
	}
	for c := range codes {
		want, ok := wantStatus[c]
		if !ok {
			t.Errorf("code %s has no expected status in this test", c)
			continue
		}
		if got := statusTable.Status(c); got != want {
			t.Errorf("code %s maps to %q, want %q", c, got, want)
		}
		if _, un := unmapped[c]; un != (want == "") {
			t.Errorf("code %s: in unmapped = %v, but status %q", c, un, want)
		}
		if want != "" && !want.Valid() {
			t.Errorf("code %s maps to non-standard %q", c, want)
		}
	}
	for c := range statusTable {
		if !codes[c] {
			t.Errorf("table maps %s, which DHL does not document", c)
		}
	}
	for c := range codCollected {
		if !codes[c] {
			t.Errorf("COD code %s undocumented", c)
		}
	}
}

func TestCODCollectedEvents(t *testing.T) {
	for code, want := range map[string]bool{"GT": true, "PMTCR": true, "PMTCS": true, "delivered": false, "DLVRD": false} {
		if got := event(unifiedEvent{StatusCode: code}).CODCollected; got != want {
			t.Errorf("CODCollected of %s = %v", code, got)
		}
	}
}
