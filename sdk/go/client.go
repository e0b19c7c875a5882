package shipd

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Version is this SDK's version, sent in the User-Agent.
const Version = "0.1.0"

// Client calls the shipd API. Every generated operation (…WithResponse for
// decoded answers, the bare name for the *http.Response) is a method of it
// through the embedded ClientWithResponses; the iterators, DownloadLabel and
// WaitForShipment are its own. It is safe for concurrent use.
type Client struct {
	*ClientWithResponses
	raw *RawClient
}

// Option configures a Client.
type Option func(*settings)

type settings struct {
	httpClient   *http.Client
	maxRetries   int
	maxRetryWait time.Duration
	baseDelay    time.Duration
	userAgent    string
}

// HTTPClient sends requests through hc (its transport, timeout, proxy)
// instead of a plain http.Client.
func HTTPClient(hc *http.Client) Option { return func(s *settings) { s.httpClient = hc } }

// MaxRetries is how many times a request is sent again after a 429, a 503
// or (for idempotent requests) a network error; 0 sends each request once.
// The default is 3.
func MaxRetries(n int) Option { return func(s *settings) { s.maxRetries = max(0, n) } }

// MaxRetryWait is the longest wait before a retry. A Retry-After longer
// than it is not waited out: the answer is returned as an *Error at once,
// so a caller is never blocked for longer than it agreed to. The default is
// two minutes (shipd's rate-limit window is one minute).
func MaxRetryWait(d time.Duration) Option { return func(s *settings) { s.maxRetryWait = d } }

// RetryBackoff is the first wait after a failure that names no Retry-After;
// each further retry doubles it (with jitter). The default is 500 ms.
func RetryBackoff(d time.Duration) Option { return func(s *settings) { s.baseDelay = d } }

// UserAgent names the calling application; it is sent before the SDK's own
// product token ("shop/2.1 shipd-go/0.1.0").
func UserAgent(ua string) Option { return func(s *settings) { s.userAgent = strings.TrimSpace(ua) } }

// New returns a client of the shipd at baseURL (scheme and host, e.g.
// "https://shipd.example"; the API's /v1 is added) authenticated with apiKey.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	if apiKey == "" {
		return nil, errors.New("shipd: an API key is required")
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, errors.New("shipd: base URL must be absolute, such as https://shipd.example")
	}
	s := settings{maxRetries: 3, maxRetryWait: 2 * time.Minute, baseDelay: 500 * time.Millisecond}
	for _, o := range opts {
		o(&s)
	}
	if s.httpClient == nil {
		s.httpClient = &http.Client{}
	}
	ua := "shipd-go/" + Version
	if s.userAgent != "" {
		ua = s.userAgent + " " + ua
	}
	d := &doer{
		http: s.httpClient, apiKey: apiKey, userAgent: ua,
		retry: retryPolicy{max: s.maxRetries, maxWait: s.maxRetryWait, base: s.baseDelay},
	}
	raw, err := NewClient(strings.TrimSuffix(u.String(), "/")+"/v1", WithHTTPClient(d))
	if err != nil {
		return nil, err
	}
	return &Client{ClientWithResponses: &ClientWithResponses{raw}, raw: raw}, nil
}
