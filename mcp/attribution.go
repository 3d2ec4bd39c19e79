package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/agent"
	"github.com/hashls/hashls/workspace"
)

// TurnMeta is the tools/call _meta key through which a client passes a
// group id: the changes of every call that passes the same one form one
// turn (see agent/turn.go). Without it a session's calls are grouped by
// quiet gaps.
const TurnMeta = "hashls/turn"

// process names this server process in session ids, so that two MCP
// processes' sessions never share one. Made at the first call, not at
// package init: every hashls process links this package, and a one-shot
// `hashls tool` would pay for crypto/rand's first read (0.07 ms,
// GODEBUG=inittrace=1) for nothing.
var process = sync.OnceValue(func() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
})

// attribution is who makes a tools/call: the client's clientInfo.name
// (from initialize), the session (one client connection: stdio is one per
// process, Streamable HTTP names its sessions) and the group id the call
// passes in _meta, if any.
func attribution(req *sdk.CallToolRequest) workspace.Attribution {
	var w workspace.Attribution
	if ss := req.Session; ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			w.Agent = p.ClientInfo.Name
		}
		id := ss.ID()
		if id == "" {
			id = fmt.Sprintf("%p", ss) // stdio: the one session of the connection
		}
		w.Session = "mcp:" + process() + ":" + id
	}
	if req.Params != nil {
		if t, ok := req.Params.GetMeta()[TurnMeta].(string); ok {
			w.Turn = t
		}
	}
	return agent.CleanAttribution(w)
}
