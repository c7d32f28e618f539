# GPT-2 (124M, random weights from GPT2Config) generating NEW tokens after a
# random 32-token prompt: the launch-bound program, kept short.
import os, sys, torch
from transformers import GPT2Config, GPT2LMHeadModel

new = int(sys.argv[1]) if len(sys.argv) > 1 else 8
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
ids = torch.randint(0, 50257, (1, 32), device="cuda")
with torch.no_grad():
    torch.cuda.nvtx.range_push("generate")
    out = model.generate(ids, max_new_tokens=new, min_new_tokens=new, do_sample=False,
                         pad_token_id=0)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("generated", out.shape[1] - ids.shape[1], "tokens")
