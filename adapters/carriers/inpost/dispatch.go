package inpost

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// The shipping day in ShipX: a dispatch order orders InPost's courier to
// collect shipments, its printouts are the manifest (the package doc's
// "Pickups and manifests").

// maxPrintoutShipments is the most shipments one printouts call takes [V:
// "a maximum of 100 manifests for shipments can be downloaded at once"].
const maxPrintoutShipments = 100

// Dispatch order statuses [V: "Dispatch Order", versions 4 to 13].
const (
	orderNew      = "new"
	orderSent     = "sent"
	orderAccepted = "accepted"
	orderDone     = "done"
	orderRejected = "rejected"
	orderCanceled = "canceled"
)

// dispatchOrderForm is ShipX's DispatchOrderForm as the adapter sends it:
// the shipments, the address (never a dispatch point id), the place's
// contact and hours [V: address, shipments, comment; C shipx-sdk: name,
// phone, email, office_hours].
type dispatchOrderForm struct {
	Shipments   []int64  `json:"shipments"`
	Address     *address `json:"address"`
	Name        string   `json:"name,omitempty"`
	Phone       string   `json:"phone,omitempty"`
	Email       string   `json:"email,omitempty"`
	OfficeHours string   `json:"office_hours,omitempty"`
	Comment     string   `json:"comment,omitempty"`
}

// dispatchOrder is what the adapter reads of ShipX's DispatchOrder.
type dispatchOrder struct {
	ID        json.Number `json:"id"`
	Status    string      `json:"status"`
	Address   *address    `json:"address"`
	Shipments []struct {
		ID json.Number `json:"id"`
	} `json:"shipments"`
	// Errors say why a rejected order was rejected; their shape is not
	// documented [U]: read as validation details are.
	Errors json.RawMessage `json:"errors"`
}

// OrderCourierPickup orders InPost's courier for the shipments with a
// dispatch order and waits until ShipX has accepted it (status accepted or
// done), or refused it (rejected: a Rejection with ShipX's errors). ShipX
// makes the order at once and checks it later [C]: its id is recorded
// through req.Booking.Accept before the wait, and an attempt given it back
// (req.Booking.Handle) polls that order instead of making another. Before
// ordering, the organization's orders holding the first shipment are read:
// an order an earlier attempt made, unrecorded, at the same address,
// holding all of them and not rejected or canceled, is taken up instead. ShipX takes no date or
// window: the confirmation names none.
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	if err := checkSettings(s); err != nil {
		return carrier.CourierPickup{}, err
	}
	form, err := dispatchFormOf(req)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	var order dispatchOrder
	id := strings.TrimSpace(req.Booking.Handle)
	if id != "" {
		if order, err = c.dispatchOrder(ctx, s, id); err != nil {
			return carrier.CourierPickup{}, err
		}
	} else {
		found, ok, err := c.findDispatchOrder(ctx, s, form)
		switch {
		case err != nil:
			return carrier.CourierPickup{}, err
		case ok:
			order = found
		default:
			if order, err = c.createDispatchOrder(ctx, s, form); err != nil {
				return carrier.CourierPickup{}, err
			}
		}
		id = order.ID.String()
		if err := req.Booking.Accept(ctx, id); err != nil {
			return carrier.CourierPickup{}, acceptError(id, err)
		}
	}
	for {
		switch order.Status {
		case orderAccepted, orderDone:
			return carrier.CourierPickup{ConfirmationNumber: id}, nil
		case orderRejected:
			return carrier.CourierPickup{}, rejected(id, order.Errors)
		case orderCanceled:
			return carrier.CourierPickup{}, carrier.Reject("", "InPost: dispatch order %s was canceled before InPost accepted it", id)
		}
		if err := c.wait(ctx); err != nil {
			return carrier.CourierPickup{}, carrierhttp.Unavailable("inpost: dispatch order %s still %s: %v", id, order.Status, err)
		}
		if order, err = c.dispatchOrder(ctx, s, id); err != nil {
			return carrier.CourierPickup{}, err
		}
	}
}

// dispatchFormOf checks what ShipX would refuse for sure and writes req as
// a dispatch order: the place is the pickup's address, its name the
// contact's company (else the person), its hours the window asked
// ("09:00-12:00"; ShipX's example writes "8-16", the format is not
// documented [U]), the note its comment.
func dispatchFormOf(req carrier.CourierPickupRequest) (dispatchOrderForm, error) {
	ids, err := shipXIDs(req.Shipments)
	if err != nil {
		return dispatchOrderForm{}, err
	}
	p := toParty(req.Contact, req.Address)
	a := p.Address
	var problems []*carrier.Rejection
	if a.Street == "" || a.BuildingNumber == "" || a.City == "" || a.PostCode == "" || a.CountryCode == "" {
		problems = append(problems, carrier.Reject(carrier.PickupFieldAddress,
			"InPost needs the street, building number, city, postal code and country of the pickup (it matches the address to a dispatch point)"))
	}
	name := strings.TrimSpace(req.Contact.CompanyName)
	if name == "" {
		name = strings.TrimSpace(req.Contact.FirstName + " " + req.Contact.LastName)
	}
	if name == "" || p.Phone == "" {
		problems = append(problems, carrier.Reject(carrier.PickupFieldContact, "InPost's courier needs a name and a phone number at the pickup"))
	}
	if err := carrier.RejectionOf(problems); err != nil {
		return dispatchOrderForm{}, err
	}
	form := dispatchOrderForm{Shipments: ids, Address: &a, Name: name, Phone: p.Phone, Email: p.Email,
		Comment: strings.TrimSpace(req.Note)}
	if req.ReadyFrom != "" && req.ReadyUntil != "" {
		form.OfficeHours = req.ReadyFrom + "-" + req.ReadyUntil
	}
	return form, nil
}

// shipXIDs are the ShipX ids of shipments, numbers [V: shipments are ids;
// C: integers]. A dispatch order and a printout name shipments, never
// counts.
func shipXIDs(shipments []carrier.DispatchShipment) ([]int64, error) {
	if len(shipments) == 0 {
		return nil, carrier.Reject(carrier.PickupFieldShipments, "InPost collects named shipments: name the shipments booked through ShipX")
	}
	ids := make([]int64, len(shipments))
	for i, sh := range shipments {
		n, err := strconv.ParseInt(strings.TrimSpace(sh.ProviderShipmentID), 10, 64)
		if err != nil || n <= 0 {
			return nil, carrier.Reject(carrier.PickupFieldShipments, "shipment %s has no ShipX shipment id (%q)", sh.ShipmentID, sh.ProviderShipmentID)
		}
		ids[i] = n
	}
	return ids, nil
}

// dispatchField maps the path of ShipX's validation details of a dispatch
// order to the pickup request's field; "" when it names none of them.
func dispatchField(vendor string) string {
	head, _, _ := strings.Cut(vendor, ".")
	switch head {
	case "shipments":
		return carrier.PickupFieldShipments
	case "address", "dispatch_point_id":
		return carrier.PickupFieldAddress
	case "name", "phone", "email":
		return carrier.PickupFieldContact
	case "office_hours":
		return carrier.PickupFieldReadyFrom
	}
	return ""
}

// rejected is ShipX's rejection of dispatch order id, its errors read as
// validation details are [U].
func rejected(id string, errs json.RawMessage) error {
	rs := detailRejections(errs, dispatchField)
	if len(rs) == 0 {
		return carrier.Reject("", "InPost rejected dispatch order %s", id)
	}
	for _, r := range rs {
		r.Message = strings.Replace(r.Message, "InPost:", "InPost rejected dispatch order "+id+":", 1)
	}
	return carrier.RejectionOf(rs)
}

func (c *Carrier) ordersPath(s carrier.Settings) string {
	return "/v1/organizations/" + url.PathEscape(s.String("organizationId")) + "/dispatch_orders"
}

// createDispatchOrder sends the order; ShipX answers it, status new. The
// id is read first and alone, so that an order ShipX made is recorded even
// when the rest of its answer cannot be read (the polls read it again).
func (c *Carrier) createDispatchOrder(ctx context.Context, s carrier.Settings, form dispatchOrderForm) (dispatchOrder, error) {
	res, err := c.do(ctx, s, http.MethodPost, c.ordersPath(s), form)
	if err != nil {
		return dispatchOrder{}, err
	}
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		return dispatchOrder{}, apiErrorWith(res, "organizationId", dispatchField)
	}
	var named struct {
		ID json.Number `json:"id"`
	}
	if err := decode(res, &named); err != nil {
		return dispatchOrder{}, err
	}
	if named.ID == "" {
		return dispatchOrder{}, carrierhttp.Unavailable("inpost: dispatch order created without id")
	}
	var order dispatchOrder
	if json.Unmarshal(res.Body, &order) != nil || order.ID != named.ID {
		order = dispatchOrder{ID: named.ID, Status: orderNew}
	}
	return order, nil
}

// dispatchOrder reads one dispatch order.
func (c *Carrier) dispatchOrder(ctx context.Context, s carrier.Settings, id string) (dispatchOrder, error) {
	res, err := c.do(ctx, s, http.MethodGet, "/v1/dispatch_orders/"+url.PathEscape(id), nil)
	if err != nil {
		return dispatchOrder{}, err
	}
	if res.Status != http.StatusOK {
		return dispatchOrder{}, apiError(res, "")
	}
	var order dispatchOrder
	return order, decode(res, &order)
}

// findDispatchOrder looks among the organization's dispatch orders holding
// the first shipment of form (the list's shipment_id filter [C]) for one at
// its address that holds every one of its shipments and still stands; ok
// is false when there is none.
func (c *Carrier) findDispatchOrder(ctx context.Context, s carrier.Settings, form dispatchOrderForm) (order dispatchOrder, ok bool, err error) {
	ids := form.Shipments
	q := url.Values{"shipment_id": {strconv.FormatInt(ids[0], 10)}}
	res, err := c.do(ctx, s, http.MethodGet, c.ordersPath(s)+"?"+q.Encode(), nil)
	if err != nil {
		return order, false, err
	}
	if res.Status != http.StatusOK {
		return order, false, apiError(res, "organizationId")
	}
	var page struct {
		Items []dispatchOrder `json:"items"`
	}
	if err := decode(res, &page); err != nil {
		return order, false, err
	}
	for _, o := range page.Items {
		if o.Status == orderRejected || o.Status == orderCanceled || !samePlace(o.Address, form.Address) {
			continue
		}
		held := map[string]bool{}
		for _, sh := range o.Shipments {
			held[sh.ID.String()] = true
		}
		all := true
		for _, id := range ids {
			all = all && held[strconv.FormatInt(id, 10)]
		}
		if all {
			return o, true, nil
		}
	}
	return order, false, nil
}

// samePlace says whether an order's address is the one a form names
// (letter case and spaces aside).
func samePlace(a, b *address) bool {
	if a == nil || b == nil {
		return false
	}
	same := func(x, y string) bool { return strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(y)) }
	return same(a.Street, b.Street) && same(a.BuildingNumber, b.BuildingNumber) && same(a.PostCode, b.PostCode) && same(a.City, b.City)
}

// CancelCourierPickup deletes the dispatch order [C: DELETE
// /v1/dispatch_orders/{id}]. ShipX refusing is a Rejection with its
// message, unless the order reads canceled already (a retried cancel).
func (c *Carrier) CancelCourierPickup(ctx context.Context, s carrier.Settings, pickup carrier.CourierPickup) error {
	if err := checkSettings(s); err != nil {
		return err
	}
	id := strings.TrimSpace(pickup.ConfirmationNumber)
	if id == "" {
		return carrier.Reject("", "the pickup has no InPost dispatch order id to cancel")
	}
	res, err := c.do(ctx, s, http.MethodDelete, "/v1/dispatch_orders/"+url.PathEscape(id), nil)
	if err != nil {
		return err
	}
	if res.Status == http.StatusNoContent || res.Status == http.StatusOK {
		return nil
	}
	refusal := apiError(res, "")
	if res.Status == http.StatusBadRequest {
		if order, err := c.dispatchOrder(ctx, s, id); err == nil && order.Status == orderCanceled {
			return nil
		}
	}
	return refusal
}

// CourierPickupWindows: ShipX takes no date or window and names none
// (InPost's courier comes on InPost's day): the channel's defaults stand.
func (c *Carrier) CourierPickupWindows(context.Context, carrier.Settings, carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	return nil, carrier.ErrNotOffered
}

// CreateManifest prints the shipments' manifest with ShipX's dispatch
// order printouts: one call per service (ShipX answers several services
// as a ZIP of one PDF each [V], kept from happening) and per 100 shipments
// [V], the PDFs merged in that order. A ZIP all the same is opened and its
// PDFs taken; shipments with and without a dispatch order, which ShipX
// refuses to mix [V], are printed apart (each shipment read for its order).
// ShipX names the manifest with no number: the reference is empty.
func (c *Carrier) CreateManifest(ctx context.Context, s carrier.Settings, req carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	if err := checkSettings(s); err != nil {
		return carrier.CarrierManifest{}, err
	}
	ids, err := shipXIDs(req.Shipments)
	if err != nil {
		return carrier.CarrierManifest{}, err
	}
	var services []string
	byService := map[string][]int64{}
	for i, sh := range req.Shipments {
		service := product(s, carrier.ShipmentRequest{ProductType: sh.ProductType})
		if _, ok := byService[service]; !ok {
			services = append(services, service)
		}
		byService[service] = append(byService[service], ids[i])
	}
	var parts [][]byte
	for _, service := range services {
		group := byService[service]
		for start := 0; start < len(group); start += maxPrintoutShipments {
			files, err := c.printouts(ctx, s, group[start:min(start+maxPrintoutShipments, len(group))])
			if err != nil {
				return carrier.CarrierManifest{}, err
			}
			parts = append(parts, files...)
		}
	}
	doc, err := labels.Merge("pdf", parts)
	if err != nil {
		return carrier.CarrierManifest{}, fmt.Errorf("inpost: merging the printouts: %w", err)
	}
	return carrier.CarrierManifest{Document: doc}, nil
}

// printouts is the manifest of ids (at most 100) as PDF files. Refused
// for mixing shipments with and without a dispatch order, it reads each
// shipment and prints the two kinds apart.
func (c *Carrier) printouts(ctx context.Context, s carrier.Settings, ids []int64) ([][]byte, error) {
	q := url.Values{"format": {"Pdf"}}
	for _, id := range ids {
		q.Add("shipment_ids[]", strconv.FormatInt(id, 10))
	}
	res, err := c.do(ctx, s, http.MethodGet, c.ordersPath(s)+"/printouts?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	if res.Status == http.StatusOK {
		return pdfsOf(res.Body)
	}
	if errorKey(res) == "cannot_mix_shipments_with_and_without_dispatch_order" && len(ids) > 1 {
		with, without, err := c.splitByDispatchOrder(ctx, s, ids)
		if err != nil {
			return nil, err
		}
		if len(with) > 0 && len(without) > 0 {
			a, err := c.printouts(ctx, s, with)
			if err != nil {
				return nil, err
			}
			b, err := c.printouts(ctx, s, without)
			return append(a, b...), err
		}
	}
	return nil, printoutError(res)
}

// splitByDispatchOrder reads each shipment and sorts ids into those a
// dispatch order collects and the others, order kept.
func (c *Carrier) splitByDispatchOrder(ctx context.Context, s carrier.Settings, ids []int64) (with, without []int64, err error) {
	for _, id := range ids {
		sh, err := c.shipment(ctx, s, strconv.FormatInt(id, 10))
		if err != nil {
			return nil, nil, err
		}
		if a := sh.CustomAttributes; a != nil && a.DispatchOrderID != nil && *a.DispatchOrderID != "" {
			with = append(with, id)
		} else {
			without = append(without, id)
		}
	}
	return with, without, nil
}

// errorKey is ShipX's error key of an answer ("" when it has none).
func errorKey(res *carrierhttp.Response) string {
	var body apiErrorBody
	_ = json.Unmarshal(res.Body, &body) // best effort: no body, no key
	return body.Error
}

// printoutError sorts a refused printout: the logistics system failing is
// unavailability [V: printout_generation_failed]; a refusal of the
// shipments (a status that cannot be printed, one not the organization's,
// too many) blames shipment_ids; the token and organization as elsewhere.
func printoutError(res *carrierhttp.Response) error {
	key := errorKey(res)
	switch key {
	case "printout_generation_failed":
		return carrierhttp.Unavailable("inpost: printouts: %s (HTTP %d)", key, res.Status)
	case "invalid_status", "does_not_exist", "invalid_range", "cannot_mix_shipments_with_and_without_dispatch_order", "validation_failed":
		err := apiErrorWith(res, carrier.PickupFieldShipments, func(string) string { return carrier.PickupFieldShipments })
		var r *carrier.Rejection
		if errors.As(err, &r) {
			r.Field = carrier.PickupFieldShipments
		}
		return err
	}
	return apiError(res, "organizationId")
}

// pdfsOf is a printout's files: the PDF itself, or the PDFs of a ZIP in
// the order of their names.
func pdfsOf(body []byte) ([][]byte, error) {
	switch {
	case strings.HasPrefix(string(body[:min(len(body), 5)]), "%PDF"):
		return [][]byte{body}, nil
	case strings.HasPrefix(string(body[:min(len(body), 4)]), "PK\x03\x04"):
		return zippedPDFs(body)
	}
	return nil, fmt.Errorf("inpost: the printout is neither a PDF nor a ZIP: %q", carrierhttp.Snippet(body[:min(len(body), 16)]))
}

// zippedPDFs are the PDF files of a ZIP, by name [V: "a single *.zip file
// containing *.pdf files", one per service].
func zippedPDFs(body []byte) ([][]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, fmt.Errorf("inpost: the printout's ZIP cannot be read: %w", err)
	}
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	var out [][]byte
	for _, f := range files {
		if !strings.HasSuffix(strings.ToLower(f.Name), ".pdf") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("inpost: the printout's %s: %w", f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(r, carrierhttp.MaxBody))
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("inpost: the printout's %s: %w", f.Name, err)
		}
		out = append(out, data)
	}
	if len(out) == 0 {
		return nil, errors.New("inpost: the printout's ZIP holds no PDF")
	}
	return out, nil
}
