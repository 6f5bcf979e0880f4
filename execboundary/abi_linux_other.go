//go:build linux && !amd64 && !arm64

package execboundary

// execCalls is empty: the gate does not know this architecture's syscall
// numbers, so it reports itself unavailable.
var execCalls []execCall

// fstatatCall is not known here (exeIdentity takes the long way).
const fstatatCall = -1
