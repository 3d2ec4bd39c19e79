// bcryptprimitives.dll for wine 8.0 (Debian bookworm), which lacks
// ProcessPrng: the Go runtime (>= 1.24) loads it from system32 at start-up
// for its random numbers and exits without it. This exports ProcessPrng and
// fills the buffer from RtlGenRandom (advapi32's SystemFunction036), which
// that wine has. Test-only: .ci/run builds it with mingw-w64 and copies it
// into the wine prefix; it is never shipped.
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n)) {
			return FALSE;
		}
		data += n;
		len -= n;
	}
	return TRUE;
}
