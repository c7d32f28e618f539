# A program that hangs: launches one PyTorch kernel, prints, then sleeps forever with no output (for kf-run --inactivity).
import time

import torch

x = torch.ones(1 << 20, device="cuda") * 2
torch.cuda.synchronize()
print("hang: launched, now sleeping", flush=True)
while True:
    time.sleep(3600)
