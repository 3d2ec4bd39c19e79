package agent

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/hashls/hashls/workspace"
)

// Turns: every change an agent makes is recorded with who made it (its
// name), the session its calls came from and a turn, so that an editor can
// show what one request to the agent did and undo it at once (the revert
// tool's "turn" argument).
//
// A turn is a group id the caller passes (MCP: the tools/call request's
// _meta "hashls/turn"; CLI: HASHLS_TURN), else its session's calls between
// two quiet gaps: a change continues the session's newest turn when that
// turn's last change is at most the turn gap old (Deps.TurnGap: 2 minutes,
// or HASHLS_TURN_GAP), else it starts a new one. The gap is measured between
// changes, in the store, so it holds whichever process commits them (the
// editor's hub or the caller itself) and across CLI processes. An MCP
// session is one client connection; the CLI's session is its agent's name
// (HASHLS_AGENT). The person's own commands in the editor belong to no
// turn.

// DefaultTurnGap is the quiet gap that ends a turn: agents make a turn's
// changes seconds to a minute apart, and a person reads the answer and
// writes the next request for longer than that. Deps.TurnGap overrides it
// (HASHLS_TURN_GAP, read by package options).
const DefaultTurnGap = 2 * time.Minute

// CLIAttribution is the attribution of a `hashls tool` call: the agent
// (HASHLS_AGENT) and turn (HASHLS_TURN) its caller named, the session named
// by the agent.
func CLIAttribution(agentName, turn string) workspace.Attribution {
	name := clipName(agentName)
	return workspace.Attribution{Agent: name, Session: "cli:" + name, Turn: clipName(turn)}
}

// clipName trims a caller-given name or id and bounds it (it is stored
// with every audit row).
func clipName(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxNameLen {
		s = s[:maxNameLen]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] >= 0xC0 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// maxNameLen bounds agent names, sessions and turn ids.
const maxNameLen = 128

// CleanAttribution bounds the fields of a transport's attribution.
func CleanAttribution(w workspace.Attribution) workspace.Attribution {
	return workspace.Attribution{Agent: clipName(w.Agent), Session: clipName(w.Session), Turn: clipName(w.Turn)}
}

// who is the attribution of env's changes: its turn is the caller's group
// id, else its session's current turn (see above), decided once per call.
func (env *Env) who() workspace.Attribution {
	w := env.Who
	if w.Turn != "" || w.Session == "" {
		return w
	}
	if env.turn == "" {
		env.turn = sessionTurn(env.WS.Store(), w.Session, time.Now(), env.turnGap)
	}
	w.Turn = env.turn
	return w
}

// sessionTurn is session's turn for a change at now: its newest turn when
// its last change is within gap (0: DefaultTurnGap), else a new turn id.
func sessionTurn(st *workspace.Store, session string, now time.Time, gap time.Duration) string {
	if gap <= 0 {
		gap = DefaultTurnGap
	}
	if st != nil {
		if turn, at, ok, err := st.LastTurn(session); err == nil && ok && turn != "" && now.Sub(at) <= gap {
			return turn
		}
	}
	return newTurnID()
}

// newTurnID returns a new turn id: "t" and 12 hex digits.
func newTurnID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "t" + hex.EncodeToString(b[:])
}

// commitOptions are the commit path's options for a change of env's call.
func (env *Env) commitOptions(allowVCS bool) workspace.CommitOptions {
	return workspace.CommitOptions{Transport: env.Transport, AllowVCS: allowVCS, Call: env.CallID, Who: env.who()}
}
