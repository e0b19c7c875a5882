package dhlexpress

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// call sends one request to the MyDHL API: HTTP Basic with the channel's
// key and secret on every call (DHL has no token to keep), the interface
// version every operation requires. A 401 is DHL refusing the credentials,
// whatever was asked; every other 4xx is the caller's to read.
func (c *Carrier) call(ctx context.Context, s carrier.Settings, method, path string, query url.Values, body []byte) (*carrierhttp.Response, error) {
	u := c.baseURL(s) + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(s.String(settingKey), s.String(settingSecret))
	req.Header.Set("x-version", APIVersion)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := carrierhttp.Do(c.cfg.HTTPClient, req)
	if err != nil {
		return nil, err
	}
	if res.Status == http.StatusUnauthorized || res.Status == http.StatusForbidden {
		return nil, carrier.Reject(settingKey, "DHL Express refused the API key and secret: %s", problemMessage(res))
	}
	return res, nil
}

// ping asks the reference data of one country: the smallest operation
// that needs the credentials.
func (c *Carrier) ping(ctx context.Context, s carrier.Settings) error {
	q := url.Values{"datasetName": {"country"}, "filterByAttribute": {"countryCode"}, "filterByValue": {"DE"}}
	res, err := c.call(ctx, s, http.MethodGet, "/reference-data", q, nil)
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK {
		return rejection(res, "credential check")
	}
	return nil
}
