package agent

// Hints say how a tool treats the workspace, for transports that advertise
// it (MCP tool annotations). They describe the files under the root: every
// tool may record snapshots in the store, which changes no file.
type Hints struct {
	Title string // a short human-readable name ("Read file")
	// ReadOnly: the tool never changes a file, the trash or the audit log.
	ReadOnly bool
	// Destructive: the tool may replace or delete existing content (which
	// goes to the trash). Meaningful only when ReadOnly is false.
	Destructive bool
	// Idempotent: repeating the call with the same arguments leaves the
	// files as the first call left them.
	Idempotent bool
}

// Hinted is a tool that declares its Hints. A tool without them is treated
// as the most careful reading allows: not read-only, destructive, not
// idempotent.
type Hinted interface{ Hints() Hints }

// Guided is a tool with a longer description than its one line: the rules
// a model needs to call it well (the edit format). Transports whose clients
// show a tool's description to a model use it instead of Description.
type Guided interface{ Guide() string }

// HintsOf returns t's hints, or the careful default when t declares none.
func HintsOf(t Tool) Hints {
	if h, ok := t.(Hinted); ok {
		return h.Hints()
	}
	return Hints{Title: t.Name(), Destructive: true}
}

// GuideOf returns t's longer description, or its one line.
func GuideOf(t Tool) string {
	if g, ok := t.(Guided); ok {
		return g.Guide()
	}
	return t.Description()
}

func (readTool) Hints() Hints {
	return Hints{Title: "Read file, directory, archive member or SQLite table", ReadOnly: true, Idempotent: true}
}
func (searchTool) Hints() Hints {
	return Hints{Title: "Search file contents", ReadOnly: true, Idempotent: true}
}
func (findTool) Hints() Hints {
	return Hints{Title: "Find paths by glob", ReadOnly: true, Idempotent: true}
}
func (trashTool) Hints() Hints {
	return Hints{Title: "List the trash", ReadOnly: true, Idempotent: true}
}
func (auditTool) Hints() Hints {
	return Hints{Title: "List the audit log", ReadOnly: true, Idempotent: true}
}

// An edit repeated with the same tag is refused as stale or recovered as a
// no-op, never applied twice; but it is not promised to be harmless in every
// case (insert ops recovered onto a changed file), so it is not idempotent.
func (editTool) Hints() Hints { return Hints{Title: "Edit files (hashline)", Destructive: true} }
func (applyPatchTool) Hints() Hints {
	return Hints{Title: "Apply a Codex-format patch", Destructive: true}
}

// Writing the same content twice leaves the same file (the trash keeps one
// more copy of it); restoring one entry twice likewise.
func (writeTool) Hints() Hints {
	return Hints{Title: "Write a file", Destructive: true, Idempotent: true}
}
func (restoreTool) Hints() Hints {
	return Hints{Title: "Restore a trash entry", Destructive: true, Idempotent: true}
}

// A second revert of the same row is refused (the file no longer holds
// what that change left), so it is not idempotent.
func (revertTool) Hints() Hints { return Hints{Title: "Revert one audited change", Destructive: true} }

// The file tools (filetools.go): the sha256-gated contract.
func (readFileTool) Hints() Hints {
	return Hints{Title: "Read a file with its sha256", ReadOnly: true, Idempotent: true}
}
func (listDirectoryTool) Hints() Hints {
	return Hints{Title: "List a directory", ReadOnly: true, Idempotent: true}
}
func (searchFilesTool) Hints() Hints {
	return Hints{Title: "Search files (text, regex or glob)", ReadOnly: true, Idempotent: true}
}
func (globTool) Hints() Hints {
	return Hints{Title: "Find files and folders by glob", ReadOnly: true, Idempotent: true}
}

// create_file never replaces anything (it fails on an existing path), so
// it is not destructive; a second identical call fails, so it is not
// idempotent.
func (createFileTool) Hints() Hints { return Hints{Title: "Create a new file"} }
func (writeFileTool) Hints() Hints {
	return Hints{Title: "Replace a file (sha256-gated)", Destructive: true, Idempotent: true}
}
func (editFileTool) Hints() Hints {
	return Hints{Title: "Edit a file by exact text (sha256-gated)", Destructive: true}
}
func (deleteFileTool) Hints() Hints {
	return Hints{Title: "Delete a file (to the trash)", Destructive: true}
}
func (restoreFileTool) Hints() Hints {
	return Hints{Title: "Restore a file from the trash", Destructive: true}
}
func (moveFileTool) Hints() Hints {
	return Hints{Title: "Move a file (never overwrites)", Destructive: true}
}

// Guide is the edit format's rules, for a model's tool list: every rule a
// model needs to edit (the seen lines, stale recovery, the headers) is
// taught here, once.
func (editTool) Guide() string {
	return `Edit files by line number, all or nothing. input holds one section per file: the ¶PATH#TAG header from your latest read, search or edit of it, then ops on the line numbers that output showed:
replace N..M:  then the new lines as +TEXT rows
delete N..M
insert before N:  / insert after N: / insert head: / insert tail:  then +TEXT rows
replace block N: / delete block N / insert after block N:  the syntax block (function, class...) starting on line N
A lone + is a blank line; ++x writes +x. No - rows, @@ headers or unchanged lines; line numbers always mean the file as you read it. REM deletes the file, MV DEST moves it.
An op may only touch lines a read or search showed you: otherwise it is refused (unseen_lines) and the refusal shows them; then retry the same edit. If the file changed since your tag, the edit lands when provably safe, else it is refused (stale_file) with the current lines and tag: redo it on those. Use the new ¶PATH#TAG each edit prints. [PATH#TAG] headers work too.
Example:
¶src/a.go#1F7C
replace 4..5:
+	return x + 1
delete 9`
}

// lsp only asks the servers (reload restarts them, which changes no
// file); lsp_edit renames, formats and applies code actions through the
// commit path unless asked to preview, and sends raw requests, which may do
// anything a server does.
func (lspTool) Hints() Hints {
	return Hints{Title: "Ask the language servers (diagnostics, navigation)", ReadOnly: true, Idempotent: true}
}
func (lspEditTool) Hints() Hints {
	return Hints{Title: "Change code through the language servers (rename, code actions, format)", Destructive: true}
}
