//go:build wine

// Under wine (CI), os.RemoveAll needs the fallback internal/wine turns on.
package hub

import _ "github.com/hashls/hashls/internal/wine"
