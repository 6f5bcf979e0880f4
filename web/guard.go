package web

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"

	"github.com/whale-ls/whale-ls/excerpt"
)

// DeniedError reports a request to an address the guard refuses: loopback,
// private, link-local, cloud metadata and other non-public addresses.
type DeniedError struct {
	// Host is the name or address as the URL gave it.
	Host string
	// Addr is the refused address; zero when the name itself was refused.
	Addr netip.Addr
	// Reason is a short phrase such as "a loopback address".
	Reason string
}

func (e *DeniedError) Error() string {
	if e.Addr.IsValid() && e.Addr.String() != e.Host {
		return fmt.Sprintf("%s resolves to %s, %s", excerpt.Text(e.Host), e.Addr, e.Reason)
	}
	return fmt.Sprintf("%s is %s", excerpt.Text(e.Host), e.Reason)
}

// blockedNames are host names that always mean this machine or a cloud
// metadata service, whatever DNS says.
var blockedNames = map[string]string{
	"localhost":                "this machine (localhost)",
	"metadata.google.internal": "a cloud metadata service",
	"metadata.goog":            "a cloud metadata service",
	"metadata":                 "a cloud metadata service",
	"instance-data":            "a cloud metadata service",
}

// blockedPrefixes are the non-public ranges, with the phrase a refusal uses.
var blockedPrefixes = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified (this-network) address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (cloud metadata lives here)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "a reserved address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a NAT64 address"},
	{netip.MustParsePrefix("fc00::/7"), "a private (unique local) address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

// Guard decides which hosts and addresses requests may reach. The zero
// Guard refuses every non-public address; AllowPrivate lets everything
// through. It checks names before resolution and every address a
// connection is actually made to, so a name that resolves to a private
// address (DNS rebinding included) is refused too.
type Guard struct {
	AllowPrivate bool
	// exempt is one address let through by address (never by name); tests
	// use it to reach a loopback server and check what happens next.
	exempt netip.Addr
}

// CheckHost refuses names that always mean this machine or a metadata
// service, and literal addresses in blocked ranges.
func (g Guard) CheckHost(host string) error {
	if g.AllowPrivate {
		return nil
	}
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if reason, ok := blockedNames[h]; ok {
		return &DeniedError{Host: host, Reason: reason}
	}
	if strings.HasSuffix(h, ".localhost") {
		return &DeniedError{Host: host, Reason: "this machine (a .localhost name)"}
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return g.CheckAddr(host, a)
	}
	return nil
}

// CheckAddr refuses a non-public address; host names it in the error.
func (g Guard) CheckAddr(host string, a netip.Addr) error {
	if g.AllowPrivate {
		return nil
	}
	a = a.Unmap().WithZone("")
	if g.exempt.IsValid() && a == g.exempt {
		return nil
	}
	for _, b := range blockedPrefixes {
		if b.prefix.Contains(a) {
			return &DeniedError{Host: host, Addr: a, Reason: b.reason}
		}
	}
	if a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return &DeniedError{Host: host, Addr: a, Reason: "the broadcast address"}
	}
	return nil
}

// Resolver looks up the addresses of a host name. *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// dialer connects only to addresses the guard allows: it resolves the name
// itself, refuses the blocked addresses, and checks the socket address once
// more just before connecting. The one exception is a proxy the route
// handed to the transport: the user chose it, so it is dialled unguarded
// (the route checks the targets sent through it).
type dialer struct {
	guard    Guard
	resolver Resolver
	net      net.Dialer
	// proxies names the proxy endpoints; nil when no proxy is used.
	proxies *proxyRoute
	// netDial, when set, replaces the network under the guard (a test
	// seam: the guard's last check on the socket address is skipped).
	netDial func(ctx context.Context, network, address string) (net.Conn, error)
}

func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if d.proxies != nil && d.proxies.isEndpoint(address) {
		if d.netDial != nil {
			return d.netDial(ctx, network, address)
		}
		return d.net.DialContext(ctx, network, address)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if err := d.guard.CheckHost(host); err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
	}
	var firstDenied error
	var lastErr error
	for _, a := range addrs {
		if err := d.guard.CheckAddr(host, a); err != nil {
			if firstDenied == nil {
				firstDenied = err
			}
			continue
		}
		nd := d.net
		nd.Control = func(_, addr string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return fmt.Errorf("unexpected socket address %q: %w", addr, err)
			}
			return d.guard.CheckAddr(host, ap.Addr())
		}
		dial := nd.DialContext
		if d.netDial != nil {
			dial = d.netDial
		}
		conn, err := dial(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	if firstDenied != nil && lastErr == nil {
		return nil, firstDenied
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("no address found for %s", host)
	}
	return nil, lastErr
}
