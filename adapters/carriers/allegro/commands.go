package allegro

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Allegro's create and cancel commands are asynchronous: the POST takes the
// command, its status resource says when it is done [V]. This file is what
// both have in common: the client-chosen command ids and the polling.

// Command states [V: CreateShipmentCommandStatusDto, CancelShipmentCommandStatusDto].
const (
	commandInProgress = "IN_PROGRESS"
	commandSuccess    = "SUCCESS"
	commandError      = "ERROR"
)

// commandStatus is the answer of GET …-commands/{commandId} [V]: a
// shipment's create and cancel commands name the shipment, a pickup's
// create command the pickup (CreatePickupCommandStatusDto).
type commandStatus struct {
	CommandID       string     `json:"commandId"`
	Status          string     `json:"status"`
	Errors          []apiError `json:"errors,omitempty"`
	ShipmentID      string     `json:"shipmentId,omitempty"`
	PickupID        string     `json:"pickupId,omitempty"`
	CarrierPickupID string     `json:"carrierPickupId,omitempty"`
	// retryAfter is the answer's Retry-After header, kept for the next wait.
	retryAfter string
}

// commandNamespace is the namespace of shipd's name-based command ids; it
// must never change, or a retried booking would send another id.
var commandNamespace = [16]byte{0x6f, 0x1c, 0x2a, 0x57, 0x0b, 0x3e, 0x4d, 0x91, 0xa8, 0x44, 0x5e, 0x02, 0xc7, 0x39, 0xd1, 0x6b}

// nameUUID is the version 5 (SHA-1, name-based) UUID of name in
// commandNamespace: the same name always gives the same id.
func nameUUID(name string) string {
	h := sha1.New()
	h.Write(commandNamespace[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return formatUUID(u)
}

// randomUUID is a version 4 UUID, for a booking that has no key to derive
// its command id from (it cannot be resumed anyway).
func randomUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // never fails (crypto/rand)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

func formatUUID(u [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// createCommandID is the commandId of every attempt to book the shipment
// whose booking key is key.
func createCommandID(key string) string {
	if key == "" {
		return randomUUID()
	}
	return nameUUID("create-shipment:" + key)
}

// cancelCommandID is the commandId of every attempt to cancel shipmentID.
func cancelCommandID(shipmentID string) string {
	return nameUUID("cancel-shipment:" + shipmentID)
}

// commandPath is the status resource of a create or cancel command.
func commandPath(kind, commandID string) string {
	return shipmentsBase + "/shipments/" + kind + "/" + url.PathEscape(commandID)
}

// submit POSTs a shipment's command to kind ("create-commands",
// "cancel-commands") and returns how long to wait before the first poll
// (submitTo).
func (c *Carrier) submit(ctx context.Context, s carrier.Settings, kind, commandID string, body any, methodSetting string) (time.Duration, error) {
	return c.submitTo(ctx, s, shipmentsBase+"/shipments/"+kind, commandID, body, shipmentFields(methodSetting))
}

// submitTo POSTs a command to the command collection at path (its status
// resource is path/{commandId}) and returns how long to wait before the
// first poll. A command Allegro refuses may be one it already has (an
// earlier attempt's, AssumedDuplicateCommandRefused): then it is resumed
// instead of refused. fields names shipd's field of a refusal's path.
func (c *Carrier) submitTo(ctx context.Context, s carrier.Settings, path, commandID string, body any, fields fieldMap) (time.Duration, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	res, err := c.call(ctx, s, request{method: http.MethodPost, url: c.apiHost(s) + path, body: data})
	if err != nil {
		return 0, err
	}
	if res.Status == http.StatusOK {
		return c.pollWait(res.Header), nil
	}
	if res.Status >= 400 && res.Status < 500 {
		_, found, err := c.command(ctx, s, path+"/"+url.PathEscape(commandID))
		switch {
		case found:
			return 0, nil
		case errors.Is(err, carrier.ErrUnavailable):
			// Whether Allegro has the command is unknown: a retry asks
			// again rather than taking the refusal as final.
			return 0, err
		}
	}
	return 0, answerErrorWith("POST "+path, res.Status, res.Body, fields)
}

// command reads a command's status once; found is false when Allegro does
// not know it (404).
func (c *Carrier) command(ctx context.Context, s carrier.Settings, path string) (st commandStatus, found bool, err error) {
	res, err := c.call(ctx, s, request{method: http.MethodGet, url: c.apiHost(s) + path})
	if err != nil {
		return st, false, err
	}
	switch res.Status {
	case http.StatusNotFound:
		return st, false, nil
	case http.StatusOK:
	default:
		return st, false, answerError("GET "+path, res.Status, res.Body, "")
	}
	if err := json.Unmarshal(res.Body, &st); err != nil {
		return st, false, fmt.Errorf("allegro: GET %s: unreadable answer: %w", path, err)
	}
	st.retryAfter = res.Header.Get("Retry-After")
	return st, true, nil
}

// await polls the command at path, first after wait, until it is SUCCESS or
// ERROR, or ctx ends (ErrUnavailable: the command goes on at Allegro and a
// retry resumes it). A poll Allegro does not answer usefully is polled
// again: the command exists, and a hiccup must not end the attempt.
func (c *Carrier) await(ctx context.Context, s carrier.Settings, path string, wait time.Duration) (commandStatus, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return commandStatus{}, carrierhttp.Unavailable("%s not finished: %v", path, ctx.Err())
		case <-t.C:
		}
		st, found, err := c.command(ctx, s, path)
		switch {
		case errors.Is(err, carrier.ErrUnavailable) && ctx.Err() == nil:
			t.Reset(c.pollWait(nil))
			continue
		case err != nil:
			return st, err
		case !found:
			return st, fmt.Errorf("allegro: %s: Allegro does not know the command", path)
		}
		switch st.Status {
		case commandSuccess, commandError:
			return st, nil
		}
		t.Reset(c.pollWait(http.Header{"Retry-After": {st.retryAfter}}))
	}
}

// pollWait is how long to wait before the next poll: Config.PollInterval
// when set, else the answer's Retry-After seconds, else DefaultPollInterval.
func (c *Carrier) pollWait(h http.Header) time.Duration {
	if c.cfg.PollInterval > 0 {
		return c.cfg.PollInterval
	}
	if secs, err := strconv.Atoi(h.Get("Retry-After")); err == nil && secs >= 1 {
		return time.Duration(secs) * time.Second
	}
	return DefaultPollInterval
}
