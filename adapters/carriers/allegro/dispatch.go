package allegro

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// The shipping day at Allegro: pickup proposals, the asynchronous pickup
// command, and the shipment protocol (the package doc's "Pickups and
// manifests").

// Resources of the shipping day [V: the file's paths].
const (
	proposalsPath  = shipmentsBase + "/pickup-proposals"
	pickupCommands = shipmentsBase + "/pickups/create-commands"
	pickupsPath    = shipmentsBase + "/pickups"
	protocolPath   = shipmentsBase + "/protocol"
)

// MaxProposalShipments is the most shipments one proposals call names [V:
// PickupProposalsRequestDto, maxItems 100]; more are asked in several calls.
const MaxProposalShipments = 100

// The pickup's request and answers, field names as Allegro's file has them
// [V: PickupCreateCommandDto, PickupCreateRequestDto, PickupTimeDto,
// PickupProposalsRequestDto, PickupProposalsResponseDto, PickupDto].
type (
	pickupCommand struct {
		CommandID string      `json:"commandId"`
		Input     pickupInput `json:"input"`
	}
	pickupInput struct {
		ShipmentIDs []string    `json:"shipmentIds"`
		PickupTime  *pickupTime `json:"pickupTime"`
		Address     address     `json:"address"`
	}
	pickupTime struct {
		Date    string `json:"date"`
		MinTime string `json:"minTime,omitempty"`
		MaxTime string `json:"maxTime,omitempty"`
	}
	proposalsRequest struct {
		ShipmentIDs []string `json:"shipmentIds"`
		ReadyDate   string   `json:"readyDate,omitempty"`
		Address     address  `json:"address"`
	}
	proposalsAnswer []struct {
		Proposals []struct {
			ShipmentID  string       `json:"shipmentId"`
			PickupTimes []pickupTime `json:"pickupTimes"`
		} `json:"proposals"`
	}
	pickupDetails struct {
		ID              string   `json:"id"`
		CarrierPickupID string   `json:"carrierPickupId"`
		ShipmentIDs     []string `json:"shipmentIds"`
	}
)

// pickupCommandID is the commandId of every attempt to order the pickup
// whose booking key (the pickup's shipd id) is key.
func pickupCommandID(key string) string {
	if key == "" {
		return randomUUID()
	}
	return nameUUID("create-pickup:" + key)
}

// OrderCourierPickup orders a courier for the named shipments in the
// window asked (Allegro's pickupTime, one of the proposals
// CourierPickupWindows answers): the create command is sent (or, given
// req.Booking.Handle, resumed), recorded through req.Booking.Accept once
// Allegro took it, and polled until done. The confirmation is the carrier's
// pickup number (Allegro's own pickup id when the carrier's is not known),
// the window the one Allegro took; Handle keeps Allegro's pickup id.
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	input, err := pickupInputOf(req)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	commandID := req.Booking.Handle
	var wait time.Duration
	if commandID == "" {
		commandID = pickupCommandID(req.Booking.Key)
		first, err := c.submitTo(ctx, s, pickupCommands, commandID, pickupCommand{CommandID: commandID, Input: input}, pickupField)
		if err != nil {
			return carrier.CourierPickup{}, err
		}
		if err := req.Booking.Accept(ctx, commandID); err != nil {
			return carrier.CourierPickup{}, acceptFailed("pickup command", commandID, err)
		}
		wait = first
	}
	st, err := c.await(ctx, s, pickupCommands+"/"+url.PathEscape(commandID), wait)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	if st.Status == commandError {
		if r := rejectionsWith(st.Errors, pickupField); r != nil {
			return carrier.CourierPickup{}, r
		}
		return carrier.CourierPickup{}, carrier.Reject("", "Allegro could not order the pickup (command %s)", commandID)
	}
	if st.PickupID == "" {
		return carrier.CourierPickup{}, fmt.Errorf("allegro: pickup command %s succeeded without a pickup id", commandID)
	}
	out := carrier.CourierPickup{ConfirmationNumber: st.CarrierPickupID, Handle: st.PickupID,
		Date: input.PickupTime.Date, ReadyFrom: input.PickupTime.MinTime, ReadyUntil: input.PickupTime.MaxTime}
	if out.ConfirmationNumber == "" {
		// The carrier's number may come a little later than the command's
		// success: the pickup is read for it, and Allegro's own id stands
		// for it when it is not there yet.
		if p, err := c.pickup(ctx, s, st.PickupID); err == nil {
			out.ConfirmationNumber = p.CarrierPickupID
		}
	}
	if out.ConfirmationNumber == "" {
		out.ConfirmationNumber = st.PickupID
	}
	return out, nil
}

// acceptFailed is a failed record of a command's handle: a Rejection or
// unavailability as it is, anything else unavailability (the next attempt
// sends the same command id and resumes).
func acceptFailed(what, commandID string, err error) error {
	if isRejection(err) || errors.Is(err, carrier.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: recording Allegro's %s %s: %v", carrier.ErrUnavailable, what, commandID, err)
}

// pickupInputOf checks what Allegro is known to refuse and builds the
// command's input; every refusal here comes before any call.
func pickupInputOf(req carrier.CourierPickupRequest) (pickupInput, error) {
	ids, err := allegroShipmentIDs(req.Shipments)
	if err != nil {
		return pickupInput{}, err
	}
	if strings.TrimSpace(req.Date) == "" {
		return pickupInput{}, carrier.Reject(carrier.PickupFieldDate, "is required: Allegro orders a pickup for a date")
	}
	addr := addressOf(req.Contact, req.Address)
	if err := checkPickupAddress(addr, true); err != nil {
		return pickupInput{}, err
	}
	return pickupInput{ShipmentIDs: ids, Address: addr,
		PickupTime: &pickupTime{Date: req.Date, MinTime: req.ReadyFrom, MaxTime: req.ReadyUntil}}, nil
}

// allegroShipmentIDs are the Allegro ids of shipments: Allegro's pickups
// and proposals name shipments, never counts [V].
func allegroShipmentIDs(shipments []carrier.DispatchShipment) ([]string, error) {
	if len(shipments) == 0 {
		return nil, carrier.Reject(carrier.PickupFieldShipments, "Allegro collects named shipments: name the shipments booked through Allegro")
	}
	ids := make([]string, len(shipments))
	for i, sh := range shipments {
		if ids[i] = strings.TrimSpace(sh.ProviderShipmentID); ids[i] == "" {
			return nil, carrier.Reject(carrier.PickupFieldShipments, "shipment %s has no Allegro shipment id", sh.ShipmentID)
		}
	}
	return ids, nil
}

// checkPickupAddress refuses a pickup address Allegro's AddressDto cannot
// take [V: street, postalCode, city, countryCode, email and phone required,
// name or company]; withContact says the contact is the request's (a
// proposal's contact is the shipment's sender, whatever it lacks Allegro's
// to judge).
func checkPickupAddress(a address, withContact bool) error {
	var problems []*carrier.Rejection
	if a.Street == "" || a.PostalCode == "" || a.City == "" || len(a.CountryCode) != 2 {
		problems = append(problems, carrier.Reject(carrier.PickupFieldAddress, "Allegro needs the street, postal code, city and country of the pickup"))
	}
	if withContact && (a.Email == "" || a.Phone == "" || a.Name == "" && a.Company == "") {
		problems = append(problems, carrier.Reject(carrier.PickupFieldContact, "Allegro needs a name or company, an e-mail address and a phone number of the pickup's contact"))
	}
	return carrier.RejectionOf(problems)
}

// pickupField maps the path of an Allegro error about a pickup or its
// proposals to the pickup request's field (AssumedErrorPaths); "" when
// Allegro names none.
func pickupField(path string) string {
	p := strings.TrimPrefix(index.ReplaceAllString(strings.TrimSpace(path), ".$1"), "input.")
	parts := strings.Split(p, ".")
	switch parts[0] {
	case "shipmentIds", "shipmentId":
		return carrier.PickupFieldShipments
	case "pickupTime", "pickupDateProposalId", "readyDate":
		if len(parts) > 1 && parts[1] == "minTime" {
			return carrier.PickupFieldReadyFrom
		}
		if len(parts) > 1 && parts[1] == "maxTime" {
			return carrier.PickupFieldReadyUntil
		}
		return carrier.PickupFieldDate
	case "address":
		if len(parts) > 1 {
			if _, ok := contactFields[parts[1]]; ok {
				return carrier.PickupFieldContact
			}
		}
		return carrier.PickupFieldAddress
	}
	return ""
}

// pickup reads an ordered pickup [V: GET pickups/{pickupId}]; it names no
// window.
func (c *Carrier) pickup(ctx context.Context, s carrier.Settings, id string) (pickupDetails, error) {
	var p pickupDetails
	path := pickupsPath + "/" + url.PathEscape(id)
	res, err := c.call(ctx, s, request{method: http.MethodGet, url: c.apiHost(s) + path})
	if err != nil {
		return p, err
	}
	if res.Status != http.StatusOK {
		return p, answerErrorWith("GET "+path, res.Status, res.Body, pickupField)
	}
	if err := json.Unmarshal(res.Body, &p); err != nil {
		return p, fmt.Errorf("allegro: GET %s: unreadable answer: %w", path, err)
	}
	return p, nil
}

// CancelCourierPickup: Allegro has no operation that cancels a pickup [V:
// the pickups resources create, poll and read only].
func (c *Carrier) CancelCourierPickup(context.Context, carrier.Settings, carrier.CourierPickup) error {
	return carrier.ErrNotOffered
}

// CourierPickupWindows asks Allegro's pickup proposals for the shipments
// (per shipment [V], at most MaxProposalShipments a call) ready on
// req.Date at req.Address, and answers the windows on that date offered to
// every one of them, in Allegro's order. The address's contact, which
// Allegro requires and the request does not carry, is the first shipment's
// sender as Allegro holds it. A proposal without times (AssumedWholeDayProposal)
// is a window without times.
func (c *Carrier) CourierPickupWindows(ctx context.Context, s carrier.Settings, req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	ids, err := allegroShipmentIDs(req.Shipments)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Date) == "" {
		return nil, carrier.Reject(carrier.PickupFieldDate, "is required: Allegro proposes pickup times from a date")
	}
	addr := addressOf(carrier.Contact{}, req.Address)
	if err := checkPickupAddress(addr, false); err != nil {
		return nil, err
	}
	sh, err := c.shipment(ctx, s, ids[0])
	if r := (*carrier.Rejection)(nil); errors.As(err, &r) && r.Field == "" {
		// Allegro refusing to read the shipment (not the credentials):
		// the shipment is not the account's.
		return nil, carrier.Reject(carrier.PickupFieldShipments, "Allegro cannot read shipment %s: %s", ids[0], r.Message)
	}
	if err != nil {
		return nil, err
	}
	addr.Name, addr.Company, addr.Email, addr.Phone = sh.Sender.Name, sh.Sender.Company, sh.Sender.Email, sh.Sender.Phone

	offered := map[string][]pickupTime{}
	for start := 0; start < len(ids); start += MaxProposalShipments {
		chunk := ids[start:min(start+MaxProposalShipments, len(ids))]
		answer, err := c.proposals(ctx, s, proposalsRequest{ShipmentIDs: chunk, ReadyDate: req.Date, Address: addr})
		if err != nil {
			return nil, err
		}
		for _, a := range answer {
			for _, p := range a.Proposals {
				offered[p.ShipmentID] = append(offered[p.ShipmentID], p.PickupTimes...)
			}
		}
	}
	return commonWindows(ids, offered, req.Date), nil
}

// proposals is one call of the pickup proposals.
func (c *Carrier) proposals(ctx context.Context, s carrier.Settings, body proposalsRequest) (proposalsAnswer, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	res, err := c.call(ctx, s, request{method: http.MethodPost, url: c.apiHost(s) + proposalsPath, body: data})
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		return nil, answerErrorWith("POST "+proposalsPath, res.Status, res.Body, pickupField)
	}
	var out proposalsAnswer
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("allegro: POST %s: unreadable answer: %w", proposalsPath, err)
	}
	return out, nil
}

// commonWindows are the windows on date Allegro offered to every shipment
// of ids, in the order it offered them to the first; none when a shipment
// got none (one courier collects them all, so each must be collectable).
func commonWindows(ids []string, offered map[string][]pickupTime, date string) []carrier.PickupWindow {
	out := []carrier.PickupWindow{}
	onDate := func(id string) map[pickupTime]bool {
		set := map[pickupTime]bool{}
		for _, t := range offered[id] {
			if t.Date == date {
				set[t] = true
			}
		}
		return set
	}
	sets := make([]map[pickupTime]bool, len(ids))
	for i, id := range ids {
		sets[i] = onDate(id)
	}
	seen := map[pickupTime]bool{}
	for _, t := range offered[ids[0]] {
		if t.Date != date || seen[t] {
			continue
		}
		seen[t] = true
		everywhere := true
		for _, set := range sets[1:] {
			everywhere = everywhere && set[t]
		}
		if everywhere {
			out = append(out, carrier.PickupWindow{From: t.MinTime, Until: t.MaxTime})
		}
	}
	return out
}

// CreateManifest asks Allegro's shipment protocol [V: POST protocol], one
// call per product (each product is its own delivery method, and so
// possibly its own carrier, whose protocol it is), and answers the files
// merged. Allegro's 204 says the carrier has no protocol [V]; a file that is
// not a PDF (the file names its type binary only, AssumedProtocolPDF) is
// none either: then the manifest has no document, and shipd draws its own
// for all of the shipments.
func (c *Carrier) CreateManifest(ctx context.Context, s carrier.Settings, req carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	ids, err := allegroShipmentIDs(req.Shipments)
	if err != nil {
		return carrier.CarrierManifest{}, err
	}
	var order []string
	byProduct := map[string][]string{}
	for i, sh := range req.Shipments {
		p := sh.ProductType
		if p == "" {
			p = setting(s, "productType", ProductCourier)
		}
		if _, ok := byProduct[p]; !ok {
			order = append(order, p)
		}
		byProduct[p] = append(byProduct[p], ids[i])
	}
	var parts [][]byte
	for _, p := range order {
		file, err := c.protocol(ctx, s, byProduct[p])
		if err != nil {
			return carrier.CarrierManifest{}, err
		}
		if file == nil {
			return carrier.CarrierManifest{}, nil
		}
		parts = append(parts, file)
	}
	doc, err := labels.Merge("pdf", parts)
	if err != nil {
		return carrier.CarrierManifest{}, fmt.Errorf("allegro: merging the protocols: %w", err)
	}
	return carrier.CarrierManifest{Document: doc}, nil
}

// protocol is one protocol call: the PDF, or nil when Allegro makes none.
func (c *Carrier) protocol(ctx context.Context, s carrier.Settings, ids []string) ([]byte, error) {
	body, err := json.Marshal(struct {
		ShipmentIDs []string `json:"shipmentIds"`
	}{ids})
	if err != nil {
		return nil, err
	}
	res, err := c.call(ctx, s, request{method: http.MethodPost, url: c.apiHost(s) + protocolPath, body: body,
		accept: "application/octet-stream, " + mediaType})
	if err != nil {
		return nil, err
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusNoContent:
		return nil, nil
	default:
		return nil, answerErrorWith("POST "+protocolPath, res.Status, res.Body, func(string) string { return carrier.PickupFieldShipments })
	}
	if sniff(res.Body) != "pdf" {
		return nil, nil
	}
	return res.Body, nil
}
