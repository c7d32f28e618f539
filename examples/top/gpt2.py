# GPT-2 generation through Hugging Face transformers: GPT2LMHeadModel from
# its config (random weights, nothing downloaded), greedy generation of
# GEN (default 12) tokens from 16 random input ids. Layers: GPT2_LAYERS (4).
import os, torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
cfg = GPT2Config(n_layer=int(os.environ.get("GPT2_LAYERS", "4")))
m = GPT2LMHeadModel(cfg).cuda().eval()
ids = torch.randint(0, cfg.vocab_size, (1, 16), device="cuda")
with torch.no_grad():
    out = m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=int(os.environ.get("GEN", "12")),
                     min_new_tokens=int(os.environ.get("GEN", "12")), do_sample=False, pad_token_id=0)
torch.cuda.synchronize()
print("gpt2: generated", out.shape[1] - ids.shape[1], "tokens")
