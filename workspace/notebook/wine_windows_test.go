//go:build wine

// Under wine (CI), os.RemoveAll needs the fallback internal/wine turns on.
package notebook

import _ "github.com/hashls/hashls/internal/wine"
