package agent

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hashls/hashls/workspace"
)

// The file tools are the plain, sha256-gated contract many agents are built
// around: read_file, list_directory, search_files, glob, create_file,
// write_file, edit_file, delete_file, restore_file, move_file (and
// apply_patch's expectedSha256ByPath). They run on the same engine as the
// hashline tools: the same overlays, the same store (read_file records the
// snapshot its sha256 and tag name, so either family's proof is accepted by
// the other), the same commit path, trash and audit log. Every mutation is
// one workspace.Commit.

// SuggestedAction is the default next step for an error of kind. The tools
// it names are jobs ({read}, {create}, ...) that Caller.Explain renders as
// tools the caller has.
func SuggestedAction(kind string) string {
	switch kind {
	case KindStale:
		return "Re-read the file to obtain the current {proof} and re-apply your edit."
	case KindUnseen:
		return "Retry the same edit, under the header the refusal shows: it showed you those lines, so they are seen now."
	case KindNotFound:
		return "Check the path[ ({find} lists what exists)]; create a new file[ with {create}]."
	case KindAlreadyExists:
		return "Read the existing file[ with {read}] and change it[ with {edit}], or choose another path."
	case KindPermission:
		return "Check the permissions of the file and its directory; for a deliberate change under .git, .hg or .svn pass allowVcs: true."
	case KindUsage:
		return "Fix the arguments as the message says."
	case KindEdit:
		return "Re-read the file[ with {read}] and base the change on its current content."
	case KindTooLarge:
		return "Ask for less: a smaller slice of the file, or a narrower path or pattern."
	case KindBinary:
		return "These tools handle text files only; leave binary files alone or replace them whole."
	case KindOutside:
		return "Use a path inside the workspace root."
	case KindInput:
		return "Fix the edit or patch text as the message says and send it again."
	case KindNoChange:
		return "The file already holds that content: re-read it[ with {read}] before changing it again."
	case KindStore:
		return "Retry; if it persists, check the state directory (HASHLS_STATE_DIR) and its disk."
	case KindInternal:
		return "This is a hashls bug: report it with the input; nothing was changed."
	default:
		return "Retry; if it persists, check the path and the disk."
	}
}

// errBinary is every tool's refusal of a binary file (n bytes) where it
// needs text.
func errBinary(tool, path string, n int) *Error {
	size := ""
	if n >= 0 {
		size = fmt.Sprintf(" (%d bytes)", n)
	}
	return &Error{Kind: KindBinary, Message: fmt.Sprintf("%s: %s is a binary file%s; hashls reads and changes text files only", tool, path, size)}
}

// checkSHAArg validates an expectedSha256 argument: 64 hex digits, or ""
// (the file must not exist); absent is refused when required.
func checkSHAArg(tool, field string, v *string, required bool) error {
	if v == nil {
		if required {
			return &Error{Kind: KindUsage, Message: fmt.Sprintf(
				"%s: %s is required: the sha256 of the file as you last read it", tool, field), SuggestedAction: "Read the file[ with {read}] and pass its sha256 as " + field + " (\"\" when the file must not exist)."}

		}
		return nil
	}
	if *v == "" {
		return nil
	}
	if b, err := hex.DecodeString(*v); err != nil || len(b) != 32 {
		return &Error{Kind: KindUsage, Message: fmt.Sprintf(
			"%s: %s %q is not a sha256", tool, field, shortQuote(*v)), SuggestedAction: "Pass the 64 hex digits of the file's sha256 as a read[ with {read}] shows it, or \"\" for a file that must not exist."}

	}
	return nil
}

// shortQuote keeps messages bounded: a long caller string is cut.
func shortQuote(s string) string {
	if len(s) <= 80 {
		return s
	}
	cut := 80
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// resolveFile resolves a file path argument of a file tool: empty and
// directory-like paths are refused.
func resolveFile(env *Env, tool, field, spelled string) (workspace.Path, error) {
	if strings.TrimSpace(spelled) == "" {
		return workspace.Path{}, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: %s is empty; give a file path relative to the workspace root", tool, field)}
	}
	if strings.HasSuffix(spelled, "/") || strings.HasSuffix(spelled, `\`) {
		return workspace.Path{}, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: %s %q ends in '/', which names a directory", tool, field, shortQuote(spelled)), SuggestedAction: "Give the path of a file; parent directories are created as needed."}
	}
	return resolveArg(env, spelled)
}

// readExisting reads p for a tool that reads or changes an existing file:
// missing files and directories (and binary files unless binaryOK) are
// refused with the contract's kinds.
func readExisting(env *Env, tool string, p workspace.Path, binaryOK bool) (*workspace.File, error) {
	f, err := env.WS.ReadFile(p)
	switch {
	case err == nil:
	case workspace.IsKind(err, workspace.KindNotFound):
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("%s: %s does not exist", tool, p.Rel), Err: err}
	case workspace.IsKind(err, workspace.KindIsDir):
		return nil, &Error{Kind: KindUsage, Message: fmt.Sprintf("%s: %s is a directory, not a file", tool, p.Rel), SuggestedAction: "Give the path of a file[; list a directory with {list}]."}
	default:
		return nil, err
	}
	if !binaryOK && workspace.IsBinary(f.Bytes) {
		return nil, errBinary(tool, p.Rel, len(f.Bytes))
	}
	return f, nil
}

// readGated reads the file an expectedSha256 names: a missing file is
// stale_file (the version the caller read is gone), a directory
// invalid_argument; binary files are read (the gate needs no text).
func readGated(env *Env, tool string, p workspace.Path) (*workspace.File, error) {
	f, err := readExisting(env, tool, p, true)
	if err != nil && AsError(err).Kind == KindNotFound {
		return nil, &Error{Kind: KindStale, Message: fmt.Sprintf("%s: %s does not exist any more, but expectedSha256 names a version of it", tool, p.Rel)}
	}
	return f, err
}
