# A program that dies: launches one PyTorch kernel, then os.abort() (SIGABRT) before the profiler can finish cleanly.
import os

import torch

x = torch.ones(1 << 20, device="cuda") * 2
torch.cuda.synchronize()
print("abort: launched, aborting", flush=True)
os.abort()
