package mcp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hashls/hashls/agent"
)

// rootsInput is the id of the roots/list input request a tool call may
// return (multi round-trip, protocol 2026-07-28 and later).
const rootsInput = "hashls-roots"

// rootFor decides the workspace root of a session: Options.Root when set;
// else the client's first file:// root when the client offers roots/list
// (asked once per session, again after notifications/roots/list_changed);
// else the current directory. When the client must be asked through an
// input request (newer protocols), rootFor returns ask = true and the
// handler returns that request; the client calls again with the answer.
func (s *Server) rootFor(ctx context.Context, req *sdk.CallToolRequest) (root string, ask bool, err error) {
	if s.opts.Root != "" {
		root, err = absRoot(s.opts.Root)
		return root, false, err
	}
	ss := req.Session
	if ss != nil && offersRoots(ss) {
		s.mu.Lock()
		sr, known := s.sessions[ss]
		s.mu.Unlock()
		if known {
			return sr.root, false, nil
		}
		var roots *sdk.ListRootsResult
		if multiRoundTrip(ss) {
			if req.Params != nil {
				roots, _ = req.Params.InputResponses[rootsInput].(*sdk.ListRootsResult)
			}
			if roots == nil {
				return "", true, nil
			}
		} else if roots, err = s.listRoots(ctx, ss); err != nil {
			return "", false, err
		}
		if root = s.pickRoot(ctx, ss, roots); root != "" {
			s.remember(ss, root)
			return root, false, nil
		}
	}
	getwd := s.opts.getwd
	if getwd == nil {
		getwd = os.Getwd
	}
	wd, err := getwd()
	if err != nil {
		return "", false, &agent.Error{Kind: agent.KindIO, Message: fmt.Sprintf("finding the current directory for the workspace root: %v; start hashls mcp with --root DIR", err), Err: err}
	}
	if root, err = absRoot(wd); err != nil {
		return "", false, err
	}
	if err := s.rootAllowed(root); err != nil {
		return "", false, &agent.Error{Kind: agent.KindPermission, Message: fmt.Sprintf("the client named no usable root, and the current directory is refused: %v", err),
			SuggestedAction: "Offer a root under the allowed directories (roots/list), or start hashls mcp with --root DIR."}
	}
	return root, false, nil
}

// rootAllowed reports why root may not be served (nil: it may): with
// Options.AllowRoots set, a root must be one of them or under one, as its
// links resolve.
func (s *Server) rootAllowed(root string) error {
	if len(s.opts.AllowRoots) == 0 {
		return nil
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	for _, a := range s.opts.AllowRoots {
		ar, err := filepath.EvalSymlinks(a)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(ar, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return nil
		}
	}
	return fmt.Errorf("%s is not under the allowed roots (%s)", root, strings.Join(s.opts.AllowRoots, string(filepath.ListSeparator)))
}

// offersRoots reports whether the session's client declared the roots
// capability.
func offersRoots(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	//lint:ignore SA1019 roots are how a client names its workspace; deprecated only from protocol 2026-07-28 on
	return p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil
}

// multiRoundTrip reports whether the session's protocol asks the client
// through input requests rather than server-to-client requests.
func multiRoundTrip(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= "2026-07-28"
}

// listRoots sends roots/list (protocols before 2026-07-28).
func (s *Server) listRoots(ctx context.Context, ss *sdk.ServerSession) (*sdk.ListRootsResult, error) {
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	//lint:ignore SA1019 see offersRoots
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &agent.Error{Kind: agent.KindIO, Message: fmt.Sprintf("the client did not answer roots/list in %v; start hashls mcp with --root DIR", rootsTimeout), Err: err}
		}
		return nil, &agent.Error{Kind: agent.KindIO, Message: fmt.Sprintf("asking the client for its roots (roots/list): %v; start hashls mcp with --root DIR", err), Err: err}
	}
	return res, nil
}

// pickRoot returns the first file:// root as a directory ("" when the
// client lists none), and tells the client which one it took.
func (s *Server) pickRoot(ctx context.Context, ss *sdk.ServerSession, res *sdk.ListRootsResult) string {
	var skipped []string
	defer func() {
		for _, sk := range skipped {
			s.log(ctx, ss, "warning", "skipped a root: %s", sk)
		}
	}()
	for _, r := range res.Roots {
		if r == nil {
			continue
		}
		dir, err := rootPath(r.URI)
		if err == nil {
			err = s.rootAllowed(dir)
		}
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		if len(res.Roots) > 1 {
			s.log(ctx, ss, "notice", "the client lists %d roots; hashls serves one workspace per session and uses the first usable one, %s (start it with --root DIR to choose)", len(res.Roots), dir)
		} else {
			s.log(ctx, ss, "info", "workspace root from the client's roots: %s", dir)
		}
		return dir
	}
	return ""
}

// remember stores a session's root and forgets it when the session ends.
func (s *Server) remember(ss *sdk.ServerSession, root string) {
	s.mu.Lock()
	_, had := s.sessions[ss]
	s.sessions[ss] = &sessionRoot{root: root}
	s.mu.Unlock()
	if !had {
		go func() {
			ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
		}()
	}
}

// rootsChanged forgets the session's root: the next tool call asks again.
func (s *Server) rootsChanged(ctx context.Context, req *sdk.RootsListChangedRequest) {
	if req == nil || req.Session == nil {
		return
	}
	s.mu.Lock()
	delete(s.sessions, req.Session)
	s.mu.Unlock()
}

// rootPath turns a root's file:// URI into a directory path.
func rootPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%q is not a URI: %w", uri, err)
	}
	if !strings.EqualFold(u.Scheme, "file") || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", fmt.Errorf("%q is not a local file:// URI", uri)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/dir
	}
	return absRoot(filepath.FromSlash(p))
}

// absRoot makes root absolute and clean.
func absRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", &agent.Error{Kind: agent.KindIO, Message: fmt.Sprintf("workspace root %s: %v; pass an absolute --root DIR", root, err), Err: err}
	}
	return abs, nil
}
