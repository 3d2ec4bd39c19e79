package agent

import (
	"bufio"
	"fmt"
	"image"
	_ "image/gif"  // registers GIF for image.DecodeConfig
	_ "image/jpeg" // registers JPEG
	_ "image/png"  // registers PNG
	"strings"

	_ "golang.org/x/image/webp" // registers WebP

	"github.com/hashls/hashls/workspace"
)

// imageInfo is what read reports of an image: its header, never its
// pixels.
type imageInfo struct {
	Format string `json:"format"` // png, jpeg, gif, webp
	MIME   string `json:"mime"`
	Bytes  int64  `json:"bytes"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// imageExts are the extensions read treats as images.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// isImageName reports whether name has an image extension.
func isImageName(name string) bool {
	i := strings.LastIndexByte(name, '.')
	return i >= 0 && imageExts[strings.ToLower(name[i:])]
}

// readImage reports an image's type, size and dimensions from its header
// (the standard decoders' DecodeConfig; golang.org/x/image for WebP),
// reading only what the header needs. ok is false when the content is not
// an image any decoder knows (the caller then reads it as it would any
// file).
func readImage(env *Env, p workspace.Path, size int64) (*Result, bool, error) {
	r, err := env.WS.OpenReader(p)
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	cfg, format, err := image.DecodeConfig(bufio.NewReaderSize(r, 4096))
	if err != nil {
		return nil, false, nil
	}
	info := &imageInfo{Format: format, MIME: "image/" + format, Bytes: size, Width: cfg.Width, Height: cfg.Height}
	text := fmt.Sprintf("%s: %s image, %d×%d pixels, %s (%d bytes).\n[Image metadata only: hashls reads and edits text; open the image in an image viewer to see it.]\n",
		p.Rel, strings.ToUpper(format), cfg.Width, cfg.Height, humanSize(size), size)
	return &Result{Text: text, Details: &readDetails{Path: p.Rel, ResolvedPath: p.Rel, Kind: "image", Image: info}}, true, nil
}
