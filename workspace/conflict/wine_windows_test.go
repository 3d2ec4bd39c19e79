//go:build wine

// Under wine (CI), os.RemoveAll needs the fallback internal/wine turns on.
package conflict

import _ "github.com/hashls/hashls/internal/wine"
