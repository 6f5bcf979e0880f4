// Package web fetches pages for the catalog's web tools and runs web
// searches.
//
// Guarantees: a Client reaches only http and https URLs, follows at most a
// bounded number of redirects, reads at most a bounded number of body bytes
// and refuses loopback, private, link-local, multicast, reserved and cloud
// metadata addresses unless its Guard allows private addresses. The guard
// looks at the host name, then at every address the name resolves to, then
// (on a direct connection) at the socket address just before connecting, on
// the first request and on every redirect; a name that resolves to a
// private address is refused however it was obtained.
//
// Proxies: a Client uses the proxy named by HTTPS_PROXY, HTTP_PROXY and
// NO_PROXY (or their lower-case forms), by net/http's rules, read from the
// environment on every request rather than once per process; requests to
// localhost and loopback addresses never use one. The connection to the
// proxy is not guarded (the user chose it; it often has a private address),
// but the target is: an address literal or name the guard refuses, or a name
// any of whose addresses (resolved on this machine) it refuses, is refused
// before anything is sent, on every redirect too. The proxy resolves the
// name again, so against DNS rebinding through a proxy this check is best
// effort; the proxy is the user's own gateway with its own rules, and a
// request through it reaches no more than other programs using the same
// proxy. A name this machine cannot resolve is not sent to the proxy unless
// private addresses are allowed. Targets excluded by NO_PROXY go direct,
// guarded as above. A failure at the proxy (unreachable, 407, a refused
// CONNECT) is a *ProxyError naming the proxy.
//
// Limits: the guard does not stop a public server from serving harmful
// content, and search providers' endpoints are trusted (they come from the
// user's settings, not from the model) and reached through net/http's
// default transport, proxies included. Readable extraction is heuristic:
// on pages without a clear main text it renders the whole body.
//
// The package knows nothing about LSP or the tool catalog.
package web
