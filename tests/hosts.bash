# Two hosts on this machine, for parallel-hosts.bats: network namespaces A
# (where GNU parallel runs) and B (an sshd), joined by a veth pair, with
# addresses only between them and on their loopbacks. B also has its own
# mount and UTS namespaces: its login directory (/root) is a tmpfs that A
# cannot see, and its hostname is kf-host-b, so that files written there
# come back only through GNU parallel's --return. hosts_start DIR, then
# hosts_stop DIR stops the sshd by pid and removes the namespaces.

# Why the hosts cannot be made here, or nothing: hosts_why_not
hosts_why_not() {
	local p
	[ "$(id -u)" -eq 0 ] || { echo "not root: ip netns and sshd need it"; return; }
	for p in ip sshd ssh ssh-keygen rsync unshare parallel; do
		PATH=$PATH:/usr/sbin command -v "$p" >/dev/null ||
			{ echo "$p not found (apt-get install iproute2 openssh-server openssh-client rsync parallel)"; return; }
	done
	ip netns add "kf-probe-$$" 2>/dev/null || { echo "cannot make a network namespace (ip netns add)"; return; }
	ip netns del "kf-probe-$$"
}

# hosts_start DIR: the namespaces (named in DIR/netns), B's sshd (pid in
# DIR/pids), DIR/ssh_config naming host kf-host-b, and DIR/path, the PATH
# B's sessions get (kf's programs and the fake profilers).
hosts_start() {
	local d=$1 a=kf-a-$$ b=kf-b-$$ net i
	net=10.$((200 + $$ % 50)).$(($$ % 250)).
	mkdir -p "$d"
	: >"$d/pids"
	printf '%s\n' "$a" "$b" >"$d/netns"
	ip netns add "$a" && ip netns add "$b" || return 1
	ip -n "$a" link set lo up && ip -n "$b" link set lo up &&
		ip -n "$a" link add kf0 type veth peer name kf1 netns "$b" &&
		ip -n "$a" addr add "${net}1/24" dev kf0 && ip -n "$b" addr add "${net}2/24" dev kf1 &&
		ip -n "$a" link set kf0 up && ip -n "$b" link set kf1 up || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$d/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$d/key" || return 1
	cp "$d/key.pub" "$d/authorized_keys"
	cat >"$d/sshd_config" <<-EOF
	ListenAddress ${net}2
	HostKey $d/hostkey
	PidFile $d/sshd.pid
	AuthorizedKeysFile $d/authorized_keys
	StrictModes no
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	MaxStartups 50
	MaxSessions 50
	SetEnv PATH=$KF_HOSTS_PATH
	EOF
	cat >"$d/ssh_config" <<-EOF
	Host kf-host-b
	HostName ${net}2
	User root
	IdentityFile $d/key
	IdentitiesOnly yes
	BatchMode yes
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	LogLevel ERROR
	ConnectTimeout 5
	EOF
	mkdir -p /run/sshd
	# ip netns exec, unshare and sh all exec: $! is the sshd.
	ip netns exec "$b" unshare --mount --uts --propagation private /bin/sh -c \
		'mount -t tmpfs kf-host-b /root && hostname kf-host-b && exec /usr/sbin/sshd -D -e -f "$1"' \
		sh "$d/sshd_config" </dev/null >>"$d/sshd.log" 2>&1 3>&- &
	echo $! >>"$d/pids"
	for i in $(seq 50); do
		ip netns exec "$a" ssh -F "$d/ssh_config" kf-host-b true 2>/dev/null && return 0
		sleep 0.1
	done
	echo "the sshd on kf-host-b did not answer: see $d/sshd.log" >&2
	return 1
}

# hosts_stop DIR: stop the sshd (and its sessions) by pid, remove the
# namespaces.
hosts_stop() {
	local d=$1 p n i s
	if [ -r "$d/pids" ]; then
		for p in $(cat "$d/pids"); do
			kill "$p" 2>/dev/null || continue
			for i in $(seq 50); do
				s=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null) || break
				[ "${s%% *}" != Z ] || break
				sleep 0.1
			done
		done
		rm -f "$d/pids"
	fi
	if [ -r "$d/netns" ]; then
		for n in $(cat "$d/netns"); do
			ip netns pids "$n" 2>/dev/null | while read -r p; do kill "$p" 2>/dev/null; done
			ip netns del "$n" 2>/dev/null
		done
		rm -f "$d/netns"
	fi
}
