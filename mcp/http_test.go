package mcp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckHTTPAddr(t *testing.T) {
	tests := []struct {
		addr        string
		allowRemote bool
		token       string
		wantErr     string // "" = accepted
	}{
		{"127.0.0.1:8765", false, "", ""},
		{"127.0.0.2:0", false, "", ""},
		{"localhost:8765", false, "", ""},
		{"[::1]:8765", false, "", ""},
		{"0.0.0.0:8765", false, "", "--allow-remote"},
		{":8765", false, "", "every interface"},
		{"192.168.1.5:8765", false, "", "--allow-remote"},
		{"example.com:8765", false, "", "--allow-remote"},
		{"0.0.0.0:8765", true, "", TokenEnv},
		{"0.0.0.0:8765", true, "secret", ""},
		{"[::]:8765", true, "secret", ""},
		{"8765", false, "", "HOST:PORT"},
		{"", false, "", "HOST:PORT"},
	}
	for _, tc := range tests {
		err := CheckHTTPAddr(tc.addr, tc.allowRemote, tc.token)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("CheckHTTPAddr(%q, %v, %q): %v", tc.addr, tc.allowRemote, tc.token, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("CheckHTTPAddr(%q, %v, %q) = %v, want an error mentioning %q", tc.addr, tc.allowRemote, tc.token, err, tc.wantErr)
		}
	}
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestHTTP serves Streamable HTTP with a token: requests without it are
// refused with 401, the SDK's client with it lists and calls tools.
func TestHTTP(t *testing.T) {
	root := workspaceDir(t, map[string]string{"a.txt": "a\n"})
	srv, err := New(Options{Root: root, StateDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, ln, HTTPOptions{Token: "s3cret"}) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeHTTP: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeHTTP did not stop within 10s")
		}
	}()
	url := "http://" + ln.Addr().String() + "/mcp"

	for _, auth := range []string{"", "Bearer wrong", "Basic s3cret", "Bearer s3cret2"} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	client := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list over HTTP: %v (%d tools)", err, len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil || res.IsError {
		t.Fatalf("read over HTTP: %v %+v", err, res)
	}
	if got := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(got, "1:a") {
		t.Errorf("read over HTTP: %q", got)
	}
}

// TestHTTPRebinding: a loopback server refuses a request whose Host header
// names another host (DNS rebinding) and a cross-origin browser request.
func TestHTTPRebinding(t *testing.T) {
	srv, err := New(Options{Root: t.TempDir(), StateDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	defer ts.Close()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"plain", nil, http.StatusOK},
		{"rebound host", map[string]string{"Host": "evil.example:80"}, http.StatusForbidden},
		{"cross-origin browser", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(init))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// TestSDKLog: the SDK's warnings reach Logf, its shutdown notice does not,
// also through a logger derived With attributes.
func TestSDKLog(t *testing.T) {
	var got []string
	srv, err := New(Options{Logf: func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	lg := srv.logger.With("session", "x")
	lg.Error("server run cancelled", "error", context.Canceled)
	lg.Warn("something odd")
	lg.Info("chatter")
	if len(got) != 1 || !strings.Contains(got[0], "something odd") {
		t.Errorf("Logf got %q, want only the warning", got)
	}
}
