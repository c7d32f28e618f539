# GPT-2 (124M, random weights from GPT2Config) generating NEW tokens after a
# random 32-token prompt: the launch-bound program, kept short.
import os, sys, time, torch
# BENCH_STAMPS=1: when each phase ends (the GPU's work done), in wall
# seconds, on standard error; without it the program is as it was
def stamp(what):
    if os.environ.get("BENCH_STAMPS"):
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
        print(f"STAMP {what} {time.time():.3f}", file=sys.stderr, flush=True)
from transformers import GPT2Config, GPT2LMHeadModel
stamp("imported")

new = int(sys.argv[1]) if len(sys.argv) > 1 else 8
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
ids = torch.randint(0, 50257, (1, 32), device="cuda")
stamp("built")
with torch.no_grad():
    torch.cuda.nvtx.range_push("generate")
    out = model.generate(ids, max_new_tokens=new, min_new_tokens=new, do_sample=False,
                         pad_token_id=0)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
stamp("generated")
print("generated", out.shape[1] - ids.shape[1], "tokens")
