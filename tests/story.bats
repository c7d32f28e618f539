#!/usr/bin/env bats
# One story: every text kf prints for the recorded examples (examples/h200*/,
# made by make examples) says nothing that another sentence or number of
# the same text contradicts: the limiter names the pipe and the memory level
# ncu's own rules name, the rules kf cannot act on are never ranked among
# those it can, the findings come in the order of their gain, every size has
# its unit, and the same launch gets one verdict in every example.
load helper

setup() {
	cd "$TOP"
}

texts() {
	ls examples/h200*/*.feedback.txt examples/h200/ops/*.feedback.txt 2>/dev/null
}

# The diagnosis of a text: its numbered lines before the first blank line.
diagnosis() {
	awk 'NR > 1 && /^$/ { exit } /^[0-9]+\. / { print }' "$1" | sed 's/^=== .* ===$//'
}

@test "story: the texts are there to read" {
	[ "$(texts | wc -l)" -ge 55 ]
}

@test "story: a compute limiter names the pipe ncu's HighPipeUtilization rule names, never 'which pipe is not known' beside it" {
	local f pipe
	for f in $(texts); do
		pipe=$(grep -o '[A-Za-z0-9]* is the highest-utilized pipeline ([0-9.]*%)' "$f" | head -n 1 | cut -d' ' -f1)
		[ -n "$pipe" ] || continue
		if grep -q 'which pipe is not known' "$f"; then
			fail "$f: ncu names the $pipe pipe, the diagnosis says which pipe is not known"
		fi
		# a Speed Of Light verdict (no raw page) names the rule's pipe
		if diagnosis "$f" | grep -q 'Compute-bound: Compute (SM) Throughput' &&
			! diagnosis "$f" | grep -q "Compute-bound: Compute (SM) Throughput [0-9.]*% of its peak (Speed Of Light), the busiest pipe "; then
			fail "$f: ncu names the $pipe pipe; the compute verdict names none: $(diagnosis "$f" | head -n 3)"
		fi
	done
}

@test "story: a memory limiter names the level ncu's SOLBottleneck rule says to start with, where that level is over 60%" {
	local f level label pct
	for f in $(texts); do
		level=$(grep -o 'Start by analyzing [A-Z0-9]* in the Memory Workload Analysis' "$f" | head -n 1 | cut -d' ' -f4)
		[ -n "$level" ] || continue
		case $level in
		DRAM) label='DRAM'; pct=$(grep -o '^  - DRAM Throughput: [0-9.]*' "$f" | grep -o '[0-9.]*$') ;;
		L2) label='L2'; pct=$(grep -o '^  - L2 Cache Throughput: [0-9.]*' "$f" | grep -o '[0-9.]*$') ;;
		L1) label='\(L1/TEX\|shared memory\)'; pct=$(grep -o '^  - L1/TEX Cache Throughput: [0-9.]*' "$f" | grep -o '[0-9.]*$') ;;
		*) continue ;;
		esac
		awk -v p="$pct" 'BEGIN { exit !(p >= 60) }' || continue
		if diagnosis "$f" | grep -q 'Memory-bound' && ! diagnosis "$f" | grep -q "Memory-bound on $label"; then
			fail "$f: ncu says start with $level ($pct%), the diagnosis: $(diagnosis "$f" | grep Memory-bound)"
		fi
	done
}

@test "story: no rule share/kf/ncu_rules.tsv marks not actionable, and none under 1%, is ranked among those the author can act on" {
	local f no
	no=$(awk -F'\t' '!/^#/ && $2 == "no" { print $1 }' share/kf/ncu_rules.tsv)
	[ -n "$no" ]
	for f in $(texts); do
		awk -v no="$no" -v f="$f" '
			BEGIN { n = split(no, v, "\n"); for (i = 1; i <= n; i++) bad[v[i]] = 1 }
			# every numbered rule is ranked, whatever its heading says
			/^Rules ncu reported/ { in_ranked = 1; next }
			/^$/ { in_ranked = 0 }
			in_ranked && /^[0-9]+\. \[/ {
				name = $3
				sub(/:$/, "", name)
				if (name in bad) { print f ": " name " is ranked: " $0; err = 1 }
				if (match($0, /speedup (up to )?[0-9.]+%/)) {
					s = substr($0, RSTART, RLENGTH); gsub(/[^0-9.]/, "", s)
					if (s + 0 < 1) { print f ": an estimate under 1% is ranked: " $0; err = 1 }
				}
			}
			END { exit err }' "$f" || fail "$f ranks a rule it must not"
		# the rules kf does not rank come after the ranked ones, apart
		if grep -q '^Rules ncu reported that kf does not rank' "$f"; then
			awk '/^Rules ncu reported that kf does not rank/ { apart = 1; next }
				apart && /^$/ { apart = 0 }
				apart && !/^- \[/ && !/^\([0-9]+ more rule/ { print; exit 1 }' "$f" ||
				fail "$f: a rule that kf does not rank is numbered"
		fi
	done
}

@test "story: the findings come in the order of their gain, the program's failure first" {
	local f
	for f in $(texts); do
		# each says what is at stake, but machinery (time set aside, not
		# a change's gain), a low occupancy that no rule estimates, and a
		# job that never started (nothing ran)
		diagnosis "$f" | grep -v 'at stake' | grep -v '^1\. The program failed' | grep -v '^1\. Nothing ran: ' |
			grep -v '^[0-9]*\. Framework machinery' | grep -v '^[0-9]*\. Low occupancy' |
			awk -v f="$f" '{ print f ": nothing at stake: " $0; err = 1 } END { exit err }' ||
			fail "$f: a finding without its impact"
		diagnosis "$f" | grep -v '^1\. The program failed' | grep -o 'about [0-9]*% of [a-z'"'"' ]*GPU time at stake\|about [0-9]*% of its time at stake' |
			grep -o '[0-9]*' | awk -v f="$f" 'NR > 1 && $1 > last { print f ": " $1 "% after " last "%"; err = 1 } { last = $1 } END { exit err }' ||
			fail "$f: a finding with more at stake comes after one with less"
	done
}

@test "story: every size in the launch configuration has its unit, and no reference boilerplate follows the diagnosis" {
	local f
	for f in $(texts); do
		if grep '^Launch configuration:' "$f" | grep -Eq 'shared memory per block [0-9]+(\.[0-9]+)?(,|\.$)'; then
			fail "$f: a shared-memory size without its unit: $(grep '^Launch configuration:' "$f")"
		fi
		if grep -q 'byte/block\|register/thread' "$f"; then
			fail "$f: a unit per block or thread after a label that says per block or thread"
		fi
		if grep -q 'Your code has been analysed' "$f"; then
			fail "$f: the reference's boilerplate"
		fi
	done
}

@test "story: the same launch (kernel, grid, block) gets one verdict in every example" {
	run bash -c 'for f in examples/h200*/*.json; do jq -c "select(.analysis.focus.limiter.bound != null) | [.analysis.focus.name, .analysis.focus.launch.grid, .analysis.focus.launch.block, .analysis.focus.limiter.bound, .analysis.focus.limiter.unit, input_filename]" "$f" 2>/dev/null; done |
		jq -s -r "group_by(.[0:3]) | map(select((map(.[3:5]) | unique | length) > 1)) | .[] | map(\"\(.[5]): \(.[3]) on \(.[4])\") | join(\"; \")"'
	assert_success
	assert_output ''
	# cuDNN's batch-norm forward of ResNet-18, with and without the raw page
	run jq -c '.analysis.focus.limiter | [.bound, .unit]' examples/h200/resnet18-full.json examples/h200-chain/resnet18-top3.json
	assert_output '["memory","l2"]
["memory","l2"]'
}
