// Package remote is the channels module's facade for a process that runs
// shipments or tracking without channels: it asks the channels process
// over HTTP (ADR 0033).
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"shipd/modules/channels/contract"
	"shipd/platform/fault"
	"shipd/platform/secrets"
	"shipd/platform/txguard"
)

// Channels asks the channels process at a base URL for channels, with the
// internal token, and opens their sealed settings with the shared key.
type Channels struct {
	base   string
	token  string
	box    *secrets.Box
	client *http.Client
}

var _ contract.Channels = (*Channels)(nil)

// New returns the remote facade of the channels process at baseURL
// (CHANNELS_URL).
func New(baseURL, token string, box *secrets.Box) *Channels {
	return &Channels{base: strings.TrimRight(baseURL, "/"), token: token, box: box,
		client: &http.Client{Timeout: 10 * time.Second, Transport: txguard.Transport(nil)}}
}

// ChannelForUse returns the channel with its settings, or the fault the
// channels process answered (not found, forbidden); a process that cannot
// be reached is unavailable, as a carrier would be. The call is refused
// inside an open database transaction (txguard, ADR 0001), as the carrier
// call it precedes would be; the refusal is not unavailable, which would be
// retried.
func (c *Channels) ChannelForUse(ctx context.Context, accountID, channelID string) (contract.ChannelAccess, error) {
	if err := txguard.Check(ctx, "channels facade GET /internal (channel "+channelID+")"); err != nil {
		return contract.ChannelAccess{}, err
	}
	u := c.base + "/internal" + contract.InternalAccessPath(channelID) + "?account_id=" + url.QueryEscape(accountID)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return contract.ChannelAccess{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := c.client.Do(req)
	if err != nil {
		return contract.ChannelAccess{}, fault.Unavailable("The channels service cannot be reached: " + err.Error())
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return contract.ChannelAccess{}, fault.Unavailable("The channels service's answer was cut off: " + err.Error())
	}
	if res.StatusCode != http.StatusOK {
		return contract.ChannelAccess{}, answeredFault(res.StatusCode, body)
	}
	var sealed contract.SealedChannelAccess
	if err := json.Unmarshal(body, &sealed); err != nil {
		return contract.ChannelAccess{}, fmt.Errorf("the channels service's answer: %w", err)
	}
	plain, err := c.box.Open(sealed.SealedSettings)
	if err != nil {
		return contract.ChannelAccess{}, fmt.Errorf("opening channel %s's settings (is SECRET_KEY the channels process's?): %w", sealed.ID, err)
	}
	access := contract.ChannelAccess{ID: sealed.ID, AccountID: sealed.AccountID, Name: sealed.Name, Provider: sealed.Provider, Status: sealed.Status}
	if err := json.Unmarshal(plain, &access.Settings); err != nil {
		return contract.ChannelAccess{}, fmt.Errorf("channel %s's settings: %w", sealed.ID, err)
	}
	return contract.WithKeeper(c, access), nil
}

// RenewCredential sends the renewal to the channels process, its values
// sealed; a process that cannot be reached is unavailable.
func (c *Channels) RenewCredential(ctx context.Context, r contract.CredentialRenewal) error {
	values, err := json.Marshal(contract.CredentialValues{Retired: r.Retired, Renewed: r.Renewed})
	if err != nil {
		return err
	}
	sealed, err := c.box.Seal(values)
	if err != nil {
		return err
	}
	body, err := json.Marshal(contract.SealedCredentialRenewal{Key: r.Key, Sealed: sealed})
	if err != nil {
		return err
	}
	u := c.base + "/internal" + contract.InternalCredentialsPath(r.ChannelID) + "?account_id=" + url.QueryEscape(r.AccountID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.client.Do(req)
	if err != nil {
		return fault.Unavailable("The channels service cannot be reached: " + err.Error())
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return fault.Unavailable("The channels service's answer was cut off: " + err.Error())
	}
	if res.StatusCode != http.StatusNoContent {
		return answeredFault(res.StatusCode, answer)
	}
	return nil
}

// answeredFault turns the channels process's error answer into the fault
// the local facade would have returned.
func answeredFault(status int, body []byte) error {
	var answer struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &answer) // best effort: the status decides the fault; a body that is no error body only leaves its message empty
	switch status {
	case http.StatusNotFound:
		return &fault.Error{Kind: fault.KindNotFound, Code: "not_found", Message: answer.Error.Message}
	case http.StatusForbidden:
		return fault.Forbidden(answer.Error.Message)
	case http.StatusUnauthorized:
		return fmt.Errorf("the channels service refused this process's INTERNAL_TOKEN")
	default:
		return fault.Unavailable(fmt.Sprintf("The channels service answered %d.", status))
	}
}
