package ppl

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

var _ carrier.Dispatcher = (*Carrier)(nil)

// The collection order, field names as PPL documents them
// (OrderBatch.OrderModel). The sender is the pickup address and contact;
// recipient is for transport orders, which shipd does not make.
type (
	orderBatchRequest struct {
		Orders []orderRequest `json:"orders"`
	}
	orderRequest struct {
		OrderType     string `json:"orderType"`
		ReferenceID   string `json:"referenceId"`
		ProductType   string `json:"productType"`
		SendDate      string `json:"sendDate"`
		SendTimeFrom  string `json:"sendTimeFrom,omitempty"`
		SendTimeTo    string `json:"sendTimeTo,omitempty"`
		ShipmentCount int    `json:"shipmentCount"`
		Sender        party  `json:"sender"`
		Email         string `json:"email,omitempty"`
		Note          string `json:"note,omitempty"`
	}
)

// The order batch's status (OrderBatchResultModel): one item per order.
type (
	orderBatchStatus struct {
		Items []orderBatchItem `json:"items"`
	}
	orderBatchItem struct {
		ReferenceID  string `json:"referenceId"`
		ImportState  string `json:"importState"`
		ErrorCode    string `json:"errorCode"`
		ErrorMessage string `json:"errorMessage"`
	}
)

// order is what the adapter reads of an order PPL holds (Order.OrderModel).
type order struct {
	OrderNumber string `json:"orderNumber"`
	OrderState  string `json:"orderState"`
	ReferenceID string `json:"referenceId"`
}

// What shipd sends and reads of an order.
const (
	collectionOrder = "CollectionOrder"
	orderCanceled   = "Canceled" // OrderStates
	// orderReferenceMax is referenceId's documented length.
	orderReferenceMax = 50
	// cancelNote goes with every cancel (CancelOrderEventModel.note).
	cancelNote = "Cancelled by the sender through shipd"
)

// OrderCourierPickup orders a PPL courier as a collection order: PPL takes
// the batch (201, its id in Location), the id is recorded through
// req.Booking.Accept, and the adapter polls the batch until the order is
// imported, then reads the order back (GET /order by its referenceId) for
// its number. An attempt given req.Booking.Handle polls that batch and never
// posts again; a first attempt asks PPL first whether it holds an order
// under the pickup's referenceId already (an earlier attempt whose batch id
// was never recorded) and answers that one instead of ordering again.
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	ref := orderReference(req.Booking.Key)
	batchID := req.Booking.Handle
	if batchID == "" {
		o, err := orderOf(req, ref)
		if err != nil {
			return carrier.CourierPickup{}, err
		}
		held, err := c.heldOrder(ctx, s, ref)
		if err != nil || held != nil {
			return pickupOf(held, ref, err)
		}
		if batchID, err = c.placeOrder(ctx, s, o); err != nil {
			return carrier.CourierPickup{}, err
		}
		if err := carrierhttp.Accept(ctx, req.Booking, batchID); err != nil {
			return carrier.CourierPickup{}, err
		}
	}
	if err := c.waitForOrderBatch(ctx, s, batchID); err != nil {
		// PPL refused to import the order. When it holds one under this
		// reference all the same, it is an earlier attempt's (the reference
		// is this pickup's alone, and PPL keeps references unique): that
		// order stands.
		if _, refused := carrier.RefusalsOf(err); refused {
			if held, herr := c.heldOrder(ctx, s, ref); herr == nil && held != nil && held.OrderNumber != "" {
				return pickupOf(held, ref, nil)
			}
		}
		return carrier.CourierPickup{}, err
	}
	o, err := c.awaitOrderNumber(ctx, s, ref)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	return carrier.CourierPickup{ConfirmationNumber: o.OrderNumber, Handle: ref}, nil
}

// pickupOf is an order PPL already held under ref, as a confirmed pickup;
// a cancelled one is no pickup to answer.
func pickupOf(o *order, ref string, err error) (carrier.CourierPickup, error) {
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	if o.OrderState == orderCanceled {
		return carrier.CourierPickup{}, &carrier.Rejection{Message: fmt.Sprintf(
			"PPL holds order %s under this pickup's reference %s, and it is cancelled", o.OrderNumber, ref)}
	}
	return carrier.CourierPickup{ConfirmationNumber: o.OrderNumber, Handle: ref}, nil
}

// orderOf is req as PPL's collection order, or its refusal before any call:
// a date, times and a parcel count PPL could not be sent.
func orderOf(req carrier.CourierPickupRequest, ref string) (orderRequest, error) {
	date, ok := sendDate(req.Date)
	if !ok {
		return orderRequest{}, carrier.Reject(carrier.PickupFieldDate, "PPL needs a date as 2006-01-02, got %q", req.Date)
	}
	from, ok := timeSpan(req.ReadyFrom)
	if !ok {
		return orderRequest{}, carrier.Reject(carrier.PickupFieldReadyFrom, "PPL needs a time of day as 15:04, got %q", req.ReadyFrom)
	}
	until, ok := timeSpan(req.ReadyUntil)
	if !ok {
		return orderRequest{}, carrier.Reject(carrier.PickupFieldReadyUntil, "PPL needs a time of day as 15:04, got %q", req.ReadyUntil)
	}
	count := req.ParcelCount
	if count == 0 {
		for _, sh := range req.Shipments {
			count += len(sh.Parcels)
		}
	}
	if count < 1 {
		return orderRequest{}, carrier.Reject(carrier.PickupFieldParcels, "PPL needs the number of parcels to collect (at least 1)")
	}
	return orderRequest{
		OrderType:     collectionOrder,
		ReferenceID:   ref,
		ProductType:   orderProductType,
		SendDate:      date,
		SendTimeFrom:  from,
		SendTimeTo:    until,
		ShipmentCount: count,
		Sender:        partyOf(req.Contact, req.Address),
		Email:         strings.TrimSpace(req.Contact.Email),
		Note:          req.Note,
	}, nil
}

// sendDate is a calendar date as PPL's sendDate: its midnight in Prague,
// with the offset, as PPL's own plugin sends it (a PHP DateTime in ATOM
// form). A date Go cannot read is not sent.
func sendDate(date string) (string, bool) {
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		loc = time.UTC
	}
	d, err := time.ParseInLocation(time.DateOnly, date, loc)
	if err != nil {
		return "", false
	}
	return d.Format(time.RFC3339), true
}

// timeSpan is a time of day "15:04" as PPL's date-span, a .NET TimeSpan
// "15:04:00" (timeSpanLayout); "" stays "" (the window is optional).
func timeSpan(hhmm string) (string, bool) {
	if hhmm == "" {
		return "", true
	}
	t, err := time.Parse("15:04", hhmm)
	if err != nil {
		return "", false
	}
	return t.Format(timeSpanLayout), true
}

// orderReference is the referenceId of every attempt to order one pickup,
// from its booking key: "shipd-" and the key when it fits PPL's 50
// characters as letters, digits, '-' and '_'; else "shipd-" and 40 hex
// digits of its hash. A pickup without a key (no caller of shipd's sends
// one) gets a random reference.
func orderReference(key string) string {
	const prefix = "shipd-"
	if key == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		return prefix + hex.EncodeToString(b)
	}
	plain := len(prefix)+len(key) <= orderReferenceMax
	for _, r := range key {
		if r >= unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_') {
			plain = false
		}
	}
	if plain {
		return prefix + key
	}
	sum := sha256.Sum256([]byte(key))
	return prefix + hex.EncodeToString(sum[:])[:40]
}

// placeOrder posts the batch of one order and returns its id from Location.
func (c *Carrier) placeOrder(ctx context.Context, s carrier.Settings, o orderRequest) (string, error) {
	body, err := json.Marshal(orderBatchRequest{Orders: []orderRequest{o}})
	if err != nil {
		return "", err
	}
	res, err := c.do(ctx, s, call{method: http.MethodPost, url: c.base(s) + "/order/batch", body: body})
	if err != nil {
		return "", err
	}
	if res.Status != http.StatusCreated {
		return "", orderAnswerError("POST /order/batch", res)
	}
	return idIn(res.Header.Get("Location"), "/order/batch/")
}

// waitForOrderBatch polls the order batch until its order is Complete, or
// Error (a Rejection with PPL's message), or ctx ends (ErrUnavailable). A
// poll PPL does not answer usefully is polled again: the order is placed.
func (c *Carrier) waitForOrderBatch(ctx context.Context, s carrier.Settings, batchID string) error {
	path := "/order/batch/" + url.PathEscape(batchID)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return carrierhttp.Unavailable("order batch %s not complete: %v", batchID, ctx.Err())
		case <-t.C:
		}
		res, err := c.do(ctx, s, call{method: http.MethodGet, url: c.base(s) + path})
		if errors.Is(err, carrier.ErrUnavailable) && ctx.Err() == nil {
			t.Reset(c.cfg.PollInterval)
			continue
		}
		if err != nil {
			return err
		}
		if res.Status != http.StatusOK {
			return orderAnswerError("GET "+path, res)
		}
		var st orderBatchStatus
		if err := json.Unmarshal(res.Body, &st); err != nil {
			return fmt.Errorf("ppl: GET %s: reading the answer: %w", path, err)
		}
		done := len(st.Items) > 0
		for _, it := range st.Items {
			switch it.ImportState {
			case importError:
				return orderImportRejection(it)
			case importComplete:
			default:
				done = false
			}
		}
		if done {
			return nil
		}
		t.Reset(c.cfg.PollInterval)
	}
}

// orderImportRejection is an order PPL failed to import: its message and
// code. PPL names no field for it.
func orderImportRejection(it orderBatchItem) *carrier.Rejection {
	msg := it.ErrorMessage
	if msg == "" {
		msg = "PPL could not import the collection order"
	}
	if it.ErrorCode != "" {
		msg += " (" + it.ErrorCode + ")"
	}
	return &carrier.Rejection{Message: msg}
}

// heldOrder is the order PPL holds under ref, nil when it holds none. Asked
// before ordering, a question PPL refuses (4xx) is taken as none: the
// read-back is unverified [U], and the order goes ahead as it would without
// it; one PPL cannot answer (ErrUnavailable) orders nothing.
func (c *Carrier) heldOrder(ctx context.Context, s carrier.Settings, ref string) (*order, error) {
	orders, err := c.orders(ctx, s, ref)
	if err != nil {
		if _, refused := carrier.RefusalsOf(err); refused {
			return nil, nil
		}
		return nil, err
	}
	return firstNumbered(orders), nil
}

// firstNumbered is the first order that has its number, or nil.
func firstNumbered(orders []order) *order {
	for i := range orders {
		if orders[i].OrderNumber != "" {
			return &orders[i]
		}
	}
	return nil
}

// awaitOrderNumber reads the imported order back until it has its number,
// or ctx ends. The order is placed: nothing here is a refusal (that would
// let shipd forget an order PPL holds), every failure is ErrUnavailable and
// the next attempt resumes from the batch.
func (c *Carrier) awaitOrderNumber(ctx context.Context, s carrier.Settings, ref string) (order, error) {
	t := time.NewTimer(0)
	defer t.Stop()
	var last error
	for {
		select {
		case <-ctx.Done():
			if last == nil {
				last = errors.New("PPL lists no order number yet")
			}
			return order{}, carrierhttp.Unavailable("order %s imported, its number not read: %v (%v)", ref, last, ctx.Err())
		case <-t.C:
		}
		orders, err := c.orders(ctx, s, ref)
		switch {
		case err == nil:
			if o := firstNumbered(orders); o != nil {
				return *o, nil
			}
			last = nil
		case errors.Is(err, carrier.ErrUnavailable):
			last = err
		default:
			return order{}, fmt.Errorf("%w: ppl: reading order %s back: %v", carrier.ErrUnavailable, ref, err)
		}
		t.Reset(c.cfg.PollInterval)
	}
}

// orders are the orders PPL lists under the referenceId ref (GET /order,
// Limit and Offset required). PPL's document types the answer as one
// OrderModel, its paging as a list: both are read [U]; an order without a
// referenceId, or 404, is none.
func (c *Carrier) orders(ctx context.Context, s carrier.Settings, ref string) ([]order, error) {
	q := url.Values{"OrderReferences": {ref}, "Limit": {"10"}, "Offset": {"0"}}
	res, err := c.do(ctx, s, call{method: http.MethodGet, url: c.base(s) + "/order?" + q.Encode()})
	if err != nil {
		return nil, err
	}
	switch {
	case res.Status == http.StatusNotFound:
		return nil, nil
	case res.Status != http.StatusOK:
		return nil, orderAnswerError("GET /order", res)
	}
	var list []order
	if err := json.Unmarshal(res.Body, &list); err != nil {
		var one order
		if err := json.Unmarshal(res.Body, &one); err != nil {
			return nil, fmt.Errorf("ppl: GET /order: reading the answer: %w", err)
		}
		list = []order{one}
	}
	out := list[:0]
	for _, o := range list {
		if o.ReferenceID == ref {
			out = append(out, o)
		}
	}
	return out, nil
}

// CancelCourierPickup cancels the collection order by its referenceId
// (pickup.Handle), as PPL's plugin does, with a note. PPL answers 200; a
// refusal stands unless the order reads back cancelled (a cancel repeated
// after its answer was lost: PPL documents no answer of its own for it),
// which counts as done.
func (c *Carrier) CancelCourierPickup(ctx context.Context, s carrier.Settings, pickup carrier.CourierPickup) error {
	ref := pickup.Handle
	if ref == "" {
		return &carrier.Rejection{Message: "the pickup has no PPL order reference to cancel by"}
	}
	body, err := json.Marshal(map[string]string{"note": cancelNote})
	if err != nil {
		return err
	}
	q := url.Values{"orderReference": {ref}}
	res, err := c.do(ctx, s, call{method: http.MethodPost, url: c.base(s) + "/order/cancel?" + q.Encode(), body: body})
	if err != nil {
		return err
	}
	if res.Status/100 == 2 {
		return nil
	}
	refused := orderAnswerError("POST /order/cancel", res)
	if !isRejection(refused) {
		return refused
	}
	if orders, err := c.orders(ctx, s, ref); err == nil {
		for _, o := range orders {
			if o.OrderState == orderCanceled {
				return nil
			}
		}
	}
	return refused
}

// CourierPickupWindows: PPL publishes no collection windows; the channel's
// defaults stand.
func (c *Carrier) CourierPickupWindows(context.Context, carrier.Settings, carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	return nil, carrier.ErrNotOffered
}

// CreateManifest: PPL's API has no handover document; shipd draws its own.
func (c *Carrier) CreateManifest(context.Context, carrier.Settings, carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	return carrier.CarrierManifest{}, carrier.ErrNotOffered
}
