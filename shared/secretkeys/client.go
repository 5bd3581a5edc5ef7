package secretkeys

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"golang.org/x/oauth2/google"
)

const (
	endpoint    = "https://secretmanager.googleapis.com/v1/"
	scope       = "https://www.googleapis.com/auth/cloud-platform"
	maxResponse = 1 << 20 // the most of an answer read
)

// Client reads secret versions through Secret Manager's REST API; safe for concurrent use.
type Client struct {
	endpoint string
	http     *http.Client
}

// NewClient returns a Client authenticating with Application Default Credentials.
func NewClient(ctx context.Context) (*Client, error) {
	hc, err := google.DefaultClient(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("secretkeys: creating a Secret Manager client: %w", err)
	}
	return &Client{endpoint: endpoint, http: hc}, nil
}

// APIError is an access the service refused: the answer's HTTP status and
// canonical status (NOT_FOUND, FAILED_PRECONDITION, …).
type APIError struct {
	HTTPStatus int
	Status     string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("Secret Manager answered %d %s", e.HTTPStatus, e.Status)
}

// statusOfHTTP is an HTTP status's usual canonical status.
var statusOfHTTP = map[int]string{
	http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusUnauthorized: "UNAUTHENTICATED", http.StatusForbidden: "PERMISSION_DENIED",
	http.StatusNotFound: "NOT_FOUND", http.StatusConflict: "ABORTED", http.StatusTooManyRequests: "RESOURCE_EXHAUSTED",
	http.StatusServiceUnavailable: "UNAVAILABLE", http.StatusGatewayTimeout: "DEADLINE_EXCEEDED",
}

// AccessSecretVersion reads version name. A refusal is an *APIError.
func (c *Client) AccessSecretVersion(ctx context.Context, name string) (*Version, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+name+":access", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var refusal struct {
			Error struct {
				Status string `json:"status"`
			} `json:"error"`
		}
		json.Unmarshal(body, &refusal)
		return nil, &APIError{HTTPStatus: resp.StatusCode, Status: cmp.Or(refusal.Error.Status, statusOfHTTP[resp.StatusCode], "UNKNOWN")}
	}
	var answer struct {
		Name    string `json:"name"`
		Payload *struct {
			Data       []byte      `json:"data"`
			DataCrc32c json.Number `json:"dataCrc32c"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if answer.Payload == nil {
		return nil, fmt.Errorf("%w: the answer has no payload", errDataLoss)
	}
	v := &Version{Name: answer.Name, Data: answer.Payload.Data}
	if answer.Payload.DataCrc32c != "" {
		sum, err := strconv.ParseInt(string(answer.Payload.DataCrc32c), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("reading the answer's checksum: %w", err)
		}
		v.DataCRC32C = &sum
	}
	return v, nil
}

// Close releases the client's idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}
