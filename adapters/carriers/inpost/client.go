package inpost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// baseURL is the sandbox host unless sandboxMode is false (absent = true).
func (c *Carrier) baseURL(s carrier.Settings) string {
	return carrierhttp.BaseURL(s, c.cfg.ProductionURL, c.cfg.SandboxURL)
}

// do sends one authenticated ShipX call; body, when not nil, goes out as
// JSON. Unavailability (no answer, ctx done, 429, 5xx) is an error wrapping
// carrier.ErrUnavailable; every other answer comes back to be read.
func (c *Carrier) do(ctx context.Context, s carrier.Settings, method, path string, body any) (*carrierhttp.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("inpost: encoding %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL(s)+path, rd)
	if err != nil {
		return nil, fmt.Errorf("inpost: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+s.String("apiToken"))
	req.Header.Set("Accept-Language", "en_GB")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return carrierhttp.Do(c.cfg.HTTPClient, req)
}

// decode reads a JSON answer the adapter expected to be well formed; a
// body that is not is the carrier answering uselessly.
func decode(res *carrierhttp.Response, into any) error {
	if err := json.Unmarshal(res.Body, into); err != nil {
		return carrierhttp.Unavailable("inpost: unreadable answer (HTTP %d): %v", res.Status, err)
	}
	return nil
}
