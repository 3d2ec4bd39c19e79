// Package hub lets every hashls process on a root hand its tool calls to the
// one process that serves that root's editor, so that the editor's open
// buffers are the truth for all of them: an agent's read through `hashls
// tool` or `hashls mcp` sees unsaved text, and its edit lands in the buffer
// through workspace/applyEdit (in the editor's undo history), not on disk.
//
// The entry points are Listen (a hub: `hashls serve` runs one for its root
// once its workspace is open) and Forward (a caller: `hashls tool` and `hashls
// mcp` forward each call through it, and run it directly when there is no
// hub). The package imports agent and workspace, never lsp or mcp: the server
// that hosts a hub gives Listen a Runner that runs a call as its own.
//
// Only the language server hosts a hub. A hub's point is the editor's open
// buffers; `hashls mcp` has none, and since there is one hub per root, an MCP
// server that became the hub first would keep the editor's server, started
// later, from being it: edits of open files would go to the disk behind the
// editor again. So `hashls mcp` is a caller (it forwards to the editor's
// server when there is one), never a hub.
//
// # Endpoint
//
// The endpoint is chosen in one place, a file per OS (endpoint_unix.go,
// endpoint_windows.go); the rest of the package dials and listens through
// it. Both sit beside a lock, workspace.HubSocket(stateDir, root) + ".lock"
// (<state>/hub/<16 hex of sha256(root)>.sock.lock), held (flock /
// LockFileEx) by the live hub for as long as it runs and released by the OS
// when the hub dies.
//
// On Unix (Linux, macOS) the endpoint is a Unix socket at
// workspace.HubSocket's path, in a directory only its owner may enter
// (0700), the socket itself 0600. Its path must fit a socket address (103
// bytes); a longer one (a very deep state directory) means no hub. Another
// user must neither receive a call nor answer one: a caller sends nothing
// unless the state and hub directories are the user's own and closed to
// others (workspace.CheckHub), the socket file is a socket the user owns,
// and, once connected, the process listening on it runs as the user (its
// credentials, SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS, read from the
// connection: they cannot be changed under us as a file's owner can);
// otherwise it runs the call itself, with a warning that says why. The hub
// closes, unanswered, a connection from a process of another user
// (peercred_*.go).
//
// On Windows it is a named pipe, per user, and per state directory and root
// as the socket is:
//
//	\\.\pipe\hashls-<8 hex of sha256(user SID)>-<16 hex of sha256(hub path)>
//
// Not AF_UNIX, although Windows 10 (1803) and later have it: a named pipe
// works on every Windows; who may open it is the pipe object's own security
// descriptor, with remote clients refused and a first-instance flag against
// squatting (an AF_UNIX socket's access is its file's ACL, inherited from a
// directory); and it runs under wine, CI's Windows, whose 8.0 has no
// AF_UNIX (listen fails with WSAEAFNOSUPPORT), so the Windows endpoint is
// tested on every CI run. The pipe's security descriptor makes the user its
// owner and lets only the user and SYSTEM open it; it rejects remote
// clients (PIPE_REJECT_REMOTE_CLIENTS); the hub creates its first instance
// with FILE_FLAG_FIRST_PIPE_INSTANCE, so that a name another process made
// first (squatting it) makes Listen fail rather than share it (wine does
// not enforce that flag; its test skips there); a caller opens it with
// SECURITY_IDENTIFICATION (the hub cannot act as the caller) and talks only
// to a pipe its own user owns. It is built on golang.org/x/sys/windows
// (already a dependency) and Go's own I/O completion port for the connected
// pipe (os.NewFile of an overlapped handle); no pipe library is added.
//
// So:
//
//   - one hub per root: Listen fails with ErrBusy while another process holds
//     the lock (that process is the hub; the second server works without
//     advertising itself);
//   - a dead hub: a killed hub leaves its socket file behind on Unix (a
//     pipe goes away with its process). Listen removes it once it holds the
//     lock; a caller that cannot connect takes the lock without waiting and,
//     when it gets it (no hub is alive), removes the socket; a missing
//     socket or pipe costs a caller one stat or one open.
//
// # Protocol (version 1)
//
// One call per connection, each message one JSON object on its own line.
//
//	caller → hub   {"hub":1,"id":CALLID,"tool":NAME,"args":{...},"transport":"cli"|"mcp"[,"textOnly":true][,"who":{"agent","session","turn"}]}
//	hub → caller   {"ack":CALLID}
//	hub → caller   {"id":CALLID,"result":{"text","details","changes","shown","warnings"}}
//	          or   {"id":CALLID,"error":{"kind","message","suggestedAction"}}
//
// CALLID is unique per call (16 random bytes, hex). The hub writes the ack as
// soon as it has read and accepted the request, and runs the call only after
// the ack was written; a request it refuses (another protocol version, a
// malformed line) gets a line {"refused": why} and no ack. The result and
// error are those of agent.Toolset.Run (the same kinds and texts as a direct
// run); with "textOnly" (a caller that prints the text alone: the CLI
// without --json) the result carries only the text and the warnings.
// "who" names the agent making the call, its session and turn
// (workspace.Attribution): the hub records them with the call's changes and
// puts the changes up for the editor's review. A caller that closes the
// connection cancels the call.
//
// # When the hub dies mid-call
//
// The rule is: the caller runs a call directly only when it can prove the hub
// did not apply it, and then at most once.
//
//   - No ack (the endpoint is missing or refuses, or the connection ends
//     before the ack line): the hub never ran the call, because it runs a
//     call only after writing its ack, and bytes a process wrote to a Unix
//     socket or a named pipe (closed, not disconnected, when it dies) are
//     delivered even when it dies right after. The caller runs it directly.
//   - Ack, then the connection ends without a result: the call may be
//     unapplied, half committed or applied. The caller waits until the hub is
//     gone (it takes <sock>.lock, which the dead hub's OS released), then opens
//     the workspace directly, whose recovery finishes or rolls back whatever
//     commit the hub left in the journal, and runs the call with
//     agent.Call{ID: CALLID, Retry: true}. Every audit row a call writes
//     carries its call id (the store's audit.call column, and the journal's
//     intent, so a commit recovery rolls forward is still the call's, while a
//     rolled-back one is not), so the retry finds the call's rows when it was
//     applied and returns them as already applied, doing nothing again;
//     otherwise nothing of it is on disk and the retry applies it once.
//   - Ctrl-C (the caller's context) before the result: the caller stops
//     waiting and closes the connection, which cancels the call in the hub;
//     it never runs the call directly then.
//
// A call's changes to open buffers are the editor's: when the hub dies after
// the editor applied an edit and before the store recorded it, the buffer
// holds the edit, and the retry writes it to the disk (the buffer, when
// saved, holds the same text).
//
// # Transport in the audit log
//
// A forwarded call is audited with the caller's own transport ("cli",
// "mcp"), not "hub": the log says who asked for the change, and the hub's
// activity notification for it says that it was forwarded. Forwarded calls
// run with the hub's settings (for instance the editor's seenLines).
//
// # Opting out
//
// `hashls --no-hub tool …` or HASHLS_NO_HUB=1 runs every call directly
// (the caller decides: package options reads the variable).
package hub
