#!/usr/bin/env bats
# The program as a whole (lib/analysis/levers.c, issue 43): kernel classes
# from share/kf/kernel_classes.tsv, confirmed or overridden by measured
# pipes; the levers between kernels (fusion, layout_copy, fp32_matmul,
# launch_bound); every finding's impact_pct in the program's unit. Real
# multi-kernel programs recorded on the H200 (tests/fixtures/programs-h200,
# examples/h200/levers/record.sh) beside PyTorch's profiler on the same
# steps, and synthetic cases for each rule.

load helper

PROGS="$FIX/programs-h200"

setup() {
	T="$BATS_TEST_TMPDIR"
}

# prog NAME MODE: the recording replayed (trace, top or full), into $T/NAME.MODE.json
prog() {
	"$TOP/examples/h200/levers/replay.sh" "$1" "$2" >"$T/$1.$2.json"
}

# synth NAME KERNELS-JSON [TIMELINE-JSON [CHAINS-JSON]] [kf-feedback options]:
# kf trace's collated record of those kernels ({name, total_ns, launches}),
# its feedback in $T/NAME.json
synth() {
	local name=$1 ks=$2 tl=${3:-null} ch=${4:-null}
	shift 4 2>/dev/null || shift $#
	jq -cn --arg id "$name" --argjson k "$ks" --argjson tl "$tl" --argjson ch "$ch" \
		'{id:$id, profiler:"trace", worker:{gpu_name:"NVIDIA H200"},
		  collated:({kernels:$k} + (if $tl == null then {} else {timeline:$tl} end) +
		  (if $ch == null then {} else {chains:$ch} end))}' |
		kf-feedback "$@" >"$T/$name.json"
}

@test "classes: real kernel names of cuBLAS, cuDNN, CUTLASS, at::native, XLA, Triton and oneDNN, each its class and where its math runs" {
	ks=$(jq -cn '[
	  "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
	  "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x64x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
	  "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT",
	  "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4::Params)",
	  "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)",
	  "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >(cublasGemmSmallNParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)",
	  "conv2d_c1_k1_nhwc",
	  "void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)",
	  "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
	  "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
	  "void at::native::vectorized_elementwise_kernel<8, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
	  "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>(int, float, float const*, float const*, float const*, float*, float*, float*)",
	  "void at::native::tensor_kernel_scan_outer_dim<float, unsigned int, std::plus<float> >(float*, float const*, unsigned int, unsigned int, unsigned int, float, std::plus<float>)",
	  "loop_add_fusion", "input_reduce_fusion", "input_transpose_fusion", "gemm_fusion_dot_general_1", "fusion_29",
	  "triton_poi_fused_convolution_relu_0", "triton_red_fused_native_layer_norm_1", "triton_tem_fused_mm_2",
	  "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	  "matmul_bf16_xmx<256, 128>", "gen_conv_fwd", "reorder_kernel", "my_own_kernel"
	] | to_entries | map({name: .value, total_ns: (1000 * (100 - .key)), launches: 1})')
	synth cls "$ks"
	run jq -r '.analysis.program.kernels[] | "\(.class) \(.math) \(.class_by)"' "$T/cls.json"
	assert_output "matrix fma name
matrix tensor name
matrix tensor name
matrix tensor name
matrix fma name
matrix none name
matrix none name
layout null name
layout null name
layout null name
elementwise null name
reduction null name
reduction null name
elementwise null name
reduction null name
layout null name
matrix null name
other null name
elementwise null name
reduction null name
matrix null name
communication null name
matrix tensor name
matrix null name
layout null name
other null name"
	run jq -r '[.analysis.program.kernels[] | .class_what] | .[6:13] | join("|")' "$T/cls.json"
	assert_output "depthwise convolution (cuDNN)|NCHW to NHWC conversion|contiguous copy|fill|GELU|layer normalisation|scan"
	# every kernel of the ranking listed by class: the classes' shares sum to the whole
	run jq -r '[.analysis.program.classes[] | .kernels] | add' "$T/cls.json"
	assert_output 26
}

@test "classes: a kernel measured on the tensor pipe is matrix math there, whatever its name says; FP32 on the FMA pipe where the tensor pipe stays idle" {
	# ViT-Small's recording: the memory-efficient attention in FP32 keeps
	# the tensor pipe 28.2% busy (TF32: sm__ops_path_tensor_src_tf32_dst_fp32
	# 4,529,848,320), so it is on the tensor cores; the FP32 GEMMs (ffma) are not
	prog vit_fp32 top
	run jq -r '.analysis.program.kernels[:3][] | "\(.name[0:20]) \(.class) \(.math) \(.class_by)"' "$T/vit_fp32.top.json"
	assert_output "sm80_xmma_gemm_f32f3 matrix fma name, measured
sm80_xmma_gemm_f32f3 matrix fma name, measured
fmha_cutlassF_f32_al matrix tensor name, measured"
	# a kernel with no known name whose tensor pipe is busy does matrix math
	prog linear_tail_bf16 full
	run jq -r '.analysis.program.kernels[0] | "\(.class) \(.math)"' "$T/linear_tail_bf16.full.json"
	assert_output "matrix tensor"
}

@test "real programs (H200): the first finding is the lever between kernels an expert leads with, in the program's unit" {
	# conv, bias add, ReLU: the add and clamp after the convolution (52.8%
	# in PyTorch's profiler) go whole into its epilogue
	for m in trace top full; do
		prog conv_relu_bias $m
		run jq -r '.analysis.diagnosis[0] | .kind, .impact_basis' "$T/conv_relu_bias.$m.json"
		assert_output "fusion
gpu_time"
	done
	assert_equal "$(jq -r '.analysis.diagnosis[0].impact_pct' "$T/conv_relu_bias.trace.json")" 52.7
	# conv, instance norm, divide: the bias add goes into the convolution's
	# epilogue, the norm's statistics (16.4%) keep one pass: 59.4 - 16.4
	prog conv_inorm_div trace
	assert_equal "$(jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct]' "$T/conv_inorm_div.trace.json")" '["fusion",43]'
	prog conv_gn_chain top
	assert_equal "$(jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct]' "$T/conv_gn_chain.top.json")" '["fusion",55.6]'
	# a bf16 GEMM at the tensor cores' roof, then GELU, add, LayerNorm
	prog linear_tail_bf16 top
	assert_equal "$(jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct]]' "$T/linear_tail_bf16.top.json")" '[["fusion",18.4],["compute_bound",6.1]]'
	# the SSM block: its chains, then the contiguous copies, then FP32 GEMMs
	prog ssm_permute trace
	assert_equal "$(jq -c '[.analysis.diagnosis[] | .kind]' "$T/ssm_permute.trace.json")" '["fusion","layout_copy","fp32_matmul"]'
	# the FP32 ViT: its GEMMs off the tensor cores
	prog vit_fp32 trace
	assert_equal "$(jq -c '.analysis.diagnosis[0] | [.kind, .unit, .impact_pct]' "$T/vit_fp32.trace.json")" '["fp32_matmul","fma",69.2]'
	# the LSTMs: the GPU idle between launches, a share of the traced window
	for p in lstm lstm_cell; do
		prog $p trace
		run jq -r '.analysis.diagnosis[0] | .kind, .impact_basis' "$T/$p.trace.json"
		assert_output "launch_bound
traced_window"
	done
	assert_equal "$(jq -r '.analysis.diagnosis[0].impact_pct' "$T/lstm.trace.json")" 84.1
	# ResNet-18 in FP32, batch 32: idle between launches first, then cuDNN's layout conversions
	prog resnet18_fp32 trace
	assert_equal "$(jq -c '[.analysis.diagnosis[] | .kind]' "$T/resnet18_fp32.trace.json")" '["launch_bound","layout_copy","fusion"]'
}

@test "held-out programs (H200), recorded after the rules were written: attention written out, a transposed convolution's tail, BERT in FP32, a GRU, MobileNet" {
	# QK^T -> scale -> softmax -> @V: 66.5% of PyTorch's profiler in the
	# scale and the softmax, which fused attention never writes
	for m in trace top; do
		prog attn_naive_bf16 $m
		run jq -r '.analysis.diagnosis[0] | .kind, .impact_pct, .fix' "$T/attn_naive_bf16.$m.json"
		assert_line -n 0 fusion
		assert_line -n 1 66
		assert_line -n 2 --partial "use fused attention, which never writes the score matrix: torch.nn.functional.scaled_dot_product_attention"
	done
	# ConvTranspose2d's bias add (30.8%) into its epilogue, the channel sum
	# (11.3%) one pass, then cuDNN's NHWC-NCHW conversions (32.5%)
	prog convt_sum_gelu trace
	assert_equal "$(jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct]]' "$T/convt_sum_gelu.trace.json")" '[["fusion",32.1],["layout_copy",30.7]]'
	prog bert_fp32 top
	assert_equal "$(jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct]' "$T/bert_fp32.top.json")" '["fp32_matmul",81.1]'
	# cuDNN's persistent GRU kernel, 98.2% of the time, on 2 of 132 SMs:
	# ncu's launch__grid_size, or kf trace's launch configuration and the
	# H200's SM count in gpus.json
	prog gru top
	assert_equal "$(jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct, .kernel_impact_pct]' "$T/gru.top.json")" '["small_grid",96.7,98.5]'
	prog gru trace
	assert_equal "$(jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct, .kernel_impact_pct]]' "$T/gru.trace.json")" '[["small_grid",96.7,98.5],["launch_bound",10.9,null]]'
	run jq -r '.analysis.diagnosis[0] | .what, ([.evidence[] | "\(.metric)=\(.value)"] | .[0:2] | join("; "))' "$T/gru.trace.json"
	assert_output "Small grid: RNN_blockPersist_fp_GRU<float, float, float, 128>(...)'s longest launch has 2 blocks for the 132 SMs of the NVIDIA H200 141GB, so 130 SMs idle (kf trace's launch configuration)
kernels[].grid (its longest launch): blocks=2; share/kf/gpus.json: arch.sm_count=132"
	prog mobilenet_v3 trace
	assert_equal "$(jq -c '.analysis.diagnosis[0] | [.kind, .impact_basis]' "$T/mobilenet_v3.trace.json")" '["launch_bound","traced_window"]'
}

@test "real programs (H200): every ranked kernel's share is within 3 points of PyTorch's profiler on the same steps" {
	for p in conv_relu_bias conv_inorm_div ssm_permute vit_fp32 lstm resnet18_fp32 convnext_timm \
	    attn_naive_bf16 bert_fp32 gru mobilenet_v3 efficientnet_timm; do
		for m in trace top; do
			prog $p $m
			gzip -dc "$PROGS/$p/oracle.json.gz" >"$T/oracle.json"
			run jq -r --slurpfile o "$T/oracle.json" '
				.analysis.ranking.kernels[] | .name as $n | .share_pct as $s |
				(($o[0].kernels[$n][0] // 0) * 100 / $o[0].total_ns) as $t |
				select(($s - $t) | fabs > 3) | "\($n[0:40]): kf \($s) oracle \($t)"' "$T/$p.$m.json"
			assert_output ""
		done
	done
}

@test "real programs (H200): no finding stakes more than the share of the kernels it names" {
	for f in "$PROGS"/*; do
		p=${f##*/}
		for m in trace top full; do
			[ -d "$f/$m" ] || continue
			prog "$p" $m
			run jq -r '
				(.analysis.program.kernels | map({(.name): .share_pct}) | add) as $share |
				.analysis.diagnosis[] | select(.impact_pct != null and .impact_basis == "gpu_time") |
				((if .kernels then [.kernels[] | $share[.] // 0] | add
				  elif .kernel then ($share[.kernel] // 100) else 100 end) + 0.05) as $most |
				select(.impact_pct > $most) | "\(.kind) \(.impact_pct) > \($most)"' "$T/$p.$m.json"
			assert_output ""
			# and a kernel-level finding's program share is its own share times
			# the kernel's (both rounded to 0.1 in the record)
			run jq -r '
				(.analysis.program.kernels | map({(.name): .share_pct}) | add) as $share |
				.analysis.diagnosis[] | select(.kernel_impact_pct != null and .impact_pct != null) |
				select((.kernel_impact_pct * $share[.kernel] / 100 - .impact_pct) | fabs > 0.11) | .kind' "$T/$p.$m.json"
			assert_output ""
		done
	done
}

@test "fusion: the launch order's chains; a chain with no reduction after a matrix kernel goes whole into its epilogue, one with a reduction keeps its largest pass" {
	# GEMM -> add (10) -> relu (5): epilogue, 15 saved; conv -> add (8) ->
	# norm (12) -> mul (4): one pass of 12 stays, 12 saved; of 100 in all
	ks='[{"name":"void gemm_a(float*)","total_ns":30,"launches":1},{"name":"void conv_b(float*)","total_ns":31,"launches":1},
	     {"name":"void at::native::add_kernel<float>()","total_ns":18,"launches":2},{"name":"void relu_k(float*)","total_ns":5,"launches":1},
	     {"name":"void layer_norm_k(float*)","total_ns":12,"launches":1},{"name":"void MulFunctor_k(float*)","total_ns":4,"launches":1}]'
	ks=$(jq -c 'map(.total_ns *= 1000)' <<<"$ks")
	ch=$(jq -cn '{source:"test", launches:8, runs_total:2, truncated:false, runs:[
	  {after:"void gemm_a(float*)", kernels:[{name:"void at::native::add_kernel<float>()", ns:10000},{name:"void relu_k(float*)", ns:5000}], count:1, ns:15000},
	  {after:"void conv_b(float*)", kernels:[{name:"void at::native::add_kernel<float>()", ns:8000},{name:"void layer_norm_k(float*)", ns:12000},{name:"void MulFunctor_k(float*)", ns:4000}], count:1, ns:24000}]}')
	synth f "$ks" null "$ch"
	run jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct, .kernels]' "$T/f.json"
	assert_output '["fusion",27,["void at::native::add_kernel<float>()","void layer_norm_k(float*)","void relu_k(float*)","void MulFunctor_k(float*)"]]'
	run jq -r '.feedback' "$T/f.json"
	# the largest chain is the one that gains most: 15 against 12
	assert_output --partial "in 2 chains, the largest add -> activation, after GEMM, 1 time; with no reduction in it, it can go whole into its producer's epilogue"
	assert_output --partial "Fix: torch.compile the module"
	# no launch order: fused into one kernel, the largest (add, 18) stays: 39 - 18
	synth n "$ks"
	run jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct]' "$T/n.json"
	assert_output '["fusion",21]'
	run jq -r '.feedback' "$T/n.json"
	assert_output --partial "the launch order was not recorded, so the estimate fuses them into one kernel that keeps the largest one's pass"
}

@test "fusion: under 5% of the GPU time to gain is no finding; a single kernel's program has no lever between kernels" {
	ks='[{"name":"void gemm_a(float*)","total_ns":96000,"launches":1},{"name":"void relu_k(float*)","total_ns":3000,"launches":1},{"name":"void tanh_k(float*)","total_ns":1000,"launches":1}]'
	synth small "$ks"
	run jq -c '[.analysis.diagnosis[] | .kind]' "$T/small.json"
	assert_output '[]'
	synth one '[{"name":"void at::native::elementwise_kernel<add>()","total_ns":5000,"launches":3}]'
	run jq -c '[.analysis.diagnosis[] | .kind]' "$T/one.json"
	assert_output '[]'
}

@test "layout_copy: conversions, copies and fills, all of their time, the fix for what they are" {
	ks='[{"name":"void cudnn::engines_precompiled::nchwToNhwcKernel<float>()","total_ns":20000,"launches":4},
	     {"name":"void at::native::elementwise_kernel<direct_copy_kernel_cuda>()","total_ns":10000,"launches":2},
	     {"name":"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc","total_ns":70000,"launches":2}]'
	synth l "$ks"
	run jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct, (.kernels | length)]' "$T/l.json"
	assert_output '["layout_copy",30,2]'
	run jq -r '.analysis.diagnosis[0] | .what, .fix' "$T/l.json"
	assert_output "Remove the layout conversions and copies, which move data and compute nothing: NCHW to NHWC conversion 20.0% and contiguous copy 10.0%, 2 kernels and 30.0% of the GPU time in all, saved whole where a copy is not made
run the model channels-last end to end (model.to(memory_format=torch.channels_last) and the input too), so that cuDNN converts nothing; drop the .contiguous() after permute and transpose: let the consumer read the strided view, or fold the permutation into its loads (an einsum, a kernel that indexes through it)"
}

@test "fp32_matmul: FP32 GEMMs on the FMA pipe, all together, the gain from the H200's TF32 and FP32 peaks; unknown GPU: not estimated" {
	ks='[{"name":"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_ffma_cublas","total_ns":60000,"launches":3},
	     {"name":"ampere_sgemm_128x64_tn","total_ns":20000,"launches":1},
	     {"name":"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()","total_ns":20000,"launches":1}]'
	synth g "$ks"
	# 80% of the time x (1 - 67 / 494.5)
	run jq -c '.analysis.diagnosis[0] | [.kind, .unit, .impact_pct]' "$T/g.json"
	assert_output "[\"fp32_matmul\",\"fma\",$(awk 'BEGIN { printf "%.1f", 80 * (1 - 67 / 494.5) }')]"
	run jq -r '.analysis.diagnosis[0].what' "$T/g.json"
	assert_output "Put the FP32 matrix math on the tensor cores: 2 kernels run it on the FMA pipe, 80.0% of the GPU time (FP32 GEMM or convolution on the FMA pipe 60.0% and FP32 GEMM on the FMA pipe (cuBLAS) 20.0%); on the tensor cores in TF32 (494.5 TFLOP/s against FP32's 67.0 on NVIDIA H200 141GB, share/kf/gpus.json) they would take about 14% of that time"
	jq -c '.worker = {gpu_name: "Mystery GPU 9000"} | del(.feedback, .analysis)' "$T/g.json" | kf-feedback >"$T/u.json"
	run jq -c '.analysis.diagnosis[0] | [.kind, .impact_pct]' "$T/u.json"
	assert_output '["fp32_matmul",null]'
	run jq -r '.analysis.diagnosis[0].what' "$T/u.json"
	assert_output --partial "the GPU's TF32 and FP32 peaks are not known (kf-feedback --gpu NAME), so the gain is not estimated"
}

@test "fp32_matmul and compute_bound of one FP32 GEMM: the same stake, so one order, alone and in a sweep, and the second says it is the first's gain (KernelBench level 2 problem 12, H100)" {
	# the two findings both take the GEMM's time at the TF32 peak: equal to
	# the tenth, the kernel's finding (made first) leads in both records;
	# alone, the lever's last bits once put it first
	for w in alone sweep; do
		zcat "$FIX/ncu-h100-kernelbench/level2-12-$w.json.gz" | kf-feedback >"$T/$w.json"
	done
	run jq -c '[.analysis.diagnosis[0:2][] | [.kind, .impact_pct]]' "$T/alone.json"
	assert_output '[["compute_bound",88.2],["fp32_matmul",88.2]]'
	run jq -c '[.analysis.diagnosis[0:2][] | [.kind, .impact_pct]]' "$T/sweep.json"
	assert_output '[["compute_bound",88.3],["fp32_matmul",88.3]]'
	# one gain said twice: the second says so, in the data and the text
	run jq -c '[.analysis.diagnosis[] | .same_gain_as]' "$T/alone.json"
	assert_output '[null,0,null]'
	run kf-feedback -t "$T/alone.json"
	assert_line --partial "2. Put the FP32 matrix math on the tensor cores: 1 kernel runs it on the FMA pipe, 98.5% of the GPU time"
	assert_line --partial "(about 88% of the program's GPU time at stake: the same kernel and gain as 1, not more on top of it). Fix: TF32"
	assert_line --partial "of FP32 matrix math would take 10% of this time (about 88% of the program's GPU time at stake, 90% of this kernel's). Fix: matrix math"
	kf-report "$T/alone.json" >"$T/alone.html"
	run grep -c "the same kernel and gain as 1, not more on top of it" "$T/alone.html"
	assert_output 1
}

@test "launch_bound: with timestamps the idle gaps under 1 ms are a share of the traced window, and lead GPU-time findings by their share of it; without, the counts and no stake" {
	ks='[{"name":"void gemm_a(float*)","total_ns":30000,"launches":100},{"name":"void relu_k(float*)","total_ns":10000,"launches":100},{"name":"void tanh_k(float*)","total_ns":10000,"launches":100}]'
	tl='{"busy_ns":50000,"kernel_ns":50000,"launches":300,"median_launch_ns":160,"short_launches":{"count":300,"ns":50000},
	     "window":{"ns":250000,"busy_ns":50000,"idle_ns":200000,"idle_gaps":299,"outside_ns":9000000,"outside_gaps":2,"host_copy_ns":0}}'
	synth w "$ks" "$tl"
	# 200 of 250 us idle: 80% of the window; the fusion's 20% of the GPU
	# time is 20% x 50/250 = 4% of the window, so it comes second
	run jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct, .impact_basis]]' "$T/w.json"
	assert_output '[["launch_bound",80,"traced_window"],["fusion",20,"gpu_time"]]'
	run jq -r '.analysis.diagnosis[0].what' "$T/w.json"
	assert_output "The GPU waits on the host between launches: it was idle 80.0% of the traced window (200.0 µs in 299 gaps under 1 ms between launches, against 50.0 µs busy); 300 of 300 launches ran under 10 µs, the median 160 ns; 2 longer gaps (9.00 ms, the host's own work: setup, Python, waits) are left out of the window"
	run jq -c '.analysis.program.window | [.ns, .idle_pct, .gpu_time_pct]' "$T/w.json"
	assert_output '[250000,80,20]'
	# the same launches without timestamps: said, not staked, after the rest
	synth d "$ks" '{"kernel_ns":50000,"launches":300,"short_launches":{"count":300,"ns":50000}}'
	run jq -c '[.analysis.diagnosis[] | [.kind, .impact_pct]]' "$T/d.json"
	assert_output '[["fusion",20],["launch_bound",null]]'
}

@test "the traced window: the program's own profiler range where it has one (the tracer's P lines), else from the top kernel's first launch" {
	mkdir -p "$T/w"
	gzip -dc "$PROGS"/conv_relu_bias/trace/*.kft.gz >"$T/w/trace.901.kft"
	replay c trace "$T/w" | kf-read >"$T/before.json"
	run jq -r '.data.timeline.window.from' "$T/before.json"
	assert_output top_kernel
	# the 10 measured steps of 6 launches, after 3 of warm-up: the range
	# opens before the 19th launch and closes after the last
	read -r c19 s19 < <(awk -F'\t' '$1 == "K" && ++n == 19 { print $19, $3 }' "$T/w/trace.901.kft")
	read -r clast < <(awk -F'\t' '$1 == "K" { c = $19 } END { print c }' "$T/w/trace.901.kft")
	awk -F'\t' -v c="$c19" -v s="$s19" -v cl="$clast" '
		$1 == "K" && $19 == c { printf "P\tstart\t%d\t%d\n", c - 1, s - 1000 }
		$1 == "E" { printf "P\tstop\t%d\t%d\n", cl + 1, 999999999999 }
		{ print }' "$T/w/trace.901.kft" >"$T/w/t" && mv "$T/w/t" "$T/w/trace.901.kft"
	replay c trace "$T/w" | kf-read >"$T/after.json"
	first=$(awk -F'\t' '$1 == "K" || $1 == "S" { s = $3 } $1 == "C" { s = $4 } ($1 == "K" || $1 == "C" || $1 == "S") && (f == "" || s < f) { f = s } END { print f }' "$T/w/trace.901.kft")
	run jq -r '.data.timeline.window | .from, .start_ns' "$T/after.json"
	assert_output "profiler_range
$((s19 - first))"
}

@test "one unit: a kernel-level finding's stake is its own times its kernel's share; the text names the unit" {
	# the two-kernel page (sgemm_naive 86.5%, copy): L1-bound, 0.6% of its time
	fb multi "$FIX/ncu-h200/detailed-multi.csv"
	run an multi '.diagnosis[0] | [.kind, .impact_pct, .kernel_impact_pct]'
	assert_output '["memory_bound",0.5,0.6]'
	run an multi '[.diagnosis[0].evidence[] | select(.metric | startswith("impact_pct") or startswith("share_pct")) | .value]'
	assert_output '[0.5,86.5]'
	run text multi
	assert_line --index 1 --partial "(about 0.5% of the program's GPU time at stake). Fix:"
}

@test "--baseline: a fusion that landed shows as its kernels gone and its finding no longer found" {
	mkdir -p "$T/b" "$T/a"
	gzip -dc "$PROGS"/conv_relu_bias/trace/*.kft.gz >"$T/b/trace.901.kft"
	# the add and the clamp (names 3 and 4 of the trace) fused away
	awk -F'\t' '!($1 == "K" && ($2 == 3 || $2 == 4))' "$T/b/trace.901.kft" >"$T/a/trace.901.kft"
	for x in b a; do
		replay c trace "$T/$x" | jq -c '. + {worker: {gpu_name: "NVIDIA H200"}}' | kf-read |
			kf-collate | kf-feedback >"$T/$x.json"
	done
	kf-feedback --baseline "$T/b.json" "$T/a.json" >"$T/d.json"
	run jq -c '.analysis.delta.levers[] | [.kind, .before_pct, .after_pct, (.kernels_gone | length), (.kernels_left | length)]' "$T/d.json"
	assert_output '["fusion",52.7,null,2,0]
["layout_copy",8,16.9,0,1]'
	run jq -r .feedback "$T/d.json"
	assert_output --partial "- Between kernels (the program-level findings):
  - fusion: no longer found (52.7% of the GPU time at stake before); 2 of its 2 kernels no longer run (by name), 52.7% of the baseline's GPU time"
}

@test "a record of the kf before classes, re-read: the new findings from its collated data" {
	# examples/h200/vit.json as kf wrote it before this change (its commit 93e9a62)
	gzip -dc "$FIX/programs-h200-old-vit.json.gz" >"$T/old.json"
	run jq -r '[.analysis.diagnosis[] | .kind] | index("fp32_matmul")' "$T/old.json"
	assert_output null
	jq -c 'del(.feedback, .analysis)' "$T/old.json" | kf-feedback >"$T/new.json"
	run jq -r '.analysis.diagnosis[0].kind, (.analysis.ranking.kernels[0] | .class, .math)' "$T/new.json"
	assert_output "fp32_matmul
matrix
fma"
}

@test "the class table: a line with a word that is not a class is said; with no line, every kernel is other" {
	mkdir -p "$T/share"
	cp "$KF_DATADIR"/* "$T/share/"
	printf '*gemm*\tmatrixx\t-\tGEMM\n' >"$T/share/kernel_classes.tsv"
	KF_DATADIR="$T/share" synth bad '[{"name":"gemm_k","total_ns":1000,"launches":1},{"name":"x_k","total_ns":1000,"launches":1}]'
	run jq -r '.analysis.program.class_error' "$T/bad.json"
	assert_output --partial 'kernel_classes.tsv:1: "matrixx" is not a class'
	# a table of comments alone: every kernel other, and nothing to say
	printf '# nothing\n' >"$T/share/kernel_classes.tsv"
	KF_DATADIR="$T/share" synth none '[{"name":"gemm_k","total_ns":1000,"launches":1},{"name":"x_k","total_ns":1000,"launches":1}]'
	run jq -r '.analysis.program.class_error, ([.analysis.program.kernels[].class] | unique | join(","))' "$T/none.json"
	assert_output "null
other"
}

@test "unitrace and VTune: their ranked kernels get classes, and their measured XMX confirms matrix math on it" {
	ut_replay j "$FIX/unitrace/bmg-gemm-xmx" '{"gpu_name":"Intel(R) Arc(TM) B580 Graphics"}' |
		kf-read 2>/dev/null | kf-collate 2>/dev/null | kf-feedback >"$T/ut.json"
	run jq -r '.analysis.program.kernels[] | "\(.class) \(.math) \(.class_by)"' "$T/ut.json"
	assert_output "matrix tensor name, measured
elementwise null name, measured"
	jq -cn --arg d "$FIX/vtune/sycl-gemm-xmx" '{id:"t", profiler:"vtune", output_dir:$d, pass:"vtune.000"}' |
		kf-read | kf-collate | kf-feedback >"$T/vt.json"
	run jq -r '.analysis.program.kernels[0] | "\(.class) \(.math) \(.class_by)"' "$T/vt.json"
	assert_output "matrix tensor name, measured"
}

@test "whose kernel: a finding on cuDNN's kernel says its fix is for cuDNN's authors and what the program can change; a kernel of the program's own gets no such words" {
	# a newcomer's conv net on the H200 (tests/fixtures/newcomer-h200)
	cp -r "$FIX/newcomer-h200/python3" "$T/"
	find "$T/python3" -name '*.gz' -exec gzip -d {} +
	kf --json reread "$T/python3" >"$T/nc.json"
	run jq -r 'select(.passes[0].pass == "ncu.000") | .analysis.diagnosis[0] |
		[.kind, .kernel, .impact_pct, .kernel_impact_pct, .fix, (.evidence | map(.metric) | map(select(startswith("library: "))) | .[])] | @tsv' "$T/nc.json"
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\t%s' latency_bound \
		'void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float*, float*, float const*, float const*, float)' 28.5 85.1 \
		'more independent loads in flight (unroll, prefetch into registers), or more warps. cuDNN wrote this kernel: a change inside it is for its authors; the program'"'"'s lever is the call: a layout it runs natively (channels_last), bf16 under autocast, a larger batch, torch.backends.cudnn.benchmark = True to let it pick another algorithm, or the op fused away (torch.compile)' \
		'library: cuDNN (share/kf/libraries.tsv)')"
	# the program-level findings name no library: their fix is the program's
	run jq -r 'select(.passes[0].pass == "trace.000") | .analysis.diagnosis | map(.kind + " " + (.fix | contains("wrote this kernel") | tostring)) | join(",")' "$T/nc.json"
	assert_output "launch_bound false,fusion false,layout_copy false"
	# bench.cu's copy_k is the program's own
	run sh -c 'kf-read "$1" | kf-collate | kf-feedback | jq -r ".analysis.diagnosis[0] | [.kind, (.fix | contains(\"wrote this kernel\"))] | @tsv"' _ "$TOP/examples/h200/copy.json"
	assert_output "$(printf 'memory_bound\tfalse')"
}
