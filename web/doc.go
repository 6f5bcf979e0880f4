// Package web fetches pages for the catalog's web tools and runs web
// searches.
//
// Guarantees: a Client reaches only http and https URLs, follows at most a
// bounded number of redirects, reads at most a bounded number of body bytes
// and refuses loopback, private, link-local, multicast, reserved and cloud
// metadata addresses unless its Guard allows private addresses. The guard
// looks at the host name, then at every address the name resolves to, then
// at the socket address just before connecting, on the first request and on
// every redirect; a name that resolves to a private address is refused
// however it was obtained. No HTTP proxy is used, so that no connection
// escapes the guard.
//
// Limits: the guard does not stop a public server from serving harmful
// content, and search providers' endpoints are trusted (they come from the
// user's settings, not from the model). Readable extraction is heuristic:
// on pages without a clear main text it renders the whole body.
//
// The package knows nothing about LSP or the tool catalog.
package web
