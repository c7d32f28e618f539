# An MLP of bf16 GEMMs under PyTorch's TunableOp (PYTORCH_TUNABLEOP_ENABLED=1,
# tuning on): the first time it meets a GEMM shape PyTorch times each
# candidate solution (cuBLAS's and cuBLASLt's), then runs the fastest.
# STEPS (4) training steps of three Linear layers (4096 wide) on a batch of
# BATCH (4096) rows. The results file goes to TUNABLEOP_DIR (a fresh
# temporary folder by default), so every run tunes. ORACLE=1: the first
# step and the others each under PyTorch's profiler (oracle.py).
import os, tempfile
d = os.environ.get("TUNABLEOP_DIR") or tempfile.mkdtemp(prefix="tunableop")
os.environ.setdefault("PYTORCH_TUNABLEOP_ENABLED", "1")
os.environ.setdefault("PYTORCH_TUNABLEOP_TUNING", "1")
os.environ.setdefault("PYTORCH_TUNABLEOP_FILENAME", os.path.join(d, "tunableop_results.csv"))
import torch
import oracle
torch.manual_seed(0)
w = int(os.environ.get("WIDTH", "4096"))
m = torch.nn.Sequential(torch.nn.Linear(w, w), torch.nn.GELU(), torch.nn.Linear(w, w), torch.nn.GELU(),
                        torch.nn.Linear(w, w)).cuda().to(torch.bfloat16)
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x = torch.randn(int(os.environ.get("BATCH", "4096")), w, device="cuda", dtype=torch.bfloat16)


def step():
    opt.zero_grad(set_to_none=True)
    loss = m(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    return loss


loss = oracle.steps(step)
torch.cuda.synchronize()
print("tunableop MLP: loss %.4f, results in %s" % (loss.item(), d))
