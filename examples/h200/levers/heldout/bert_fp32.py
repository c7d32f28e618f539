# A 4-layer BERT from transformers' config (random weights), FP32, batch 8 of 256 tokens.
import torch, transformers
def build():
    cfg = transformers.BertConfig(num_hidden_layers=4, hidden_size=768, num_attention_heads=12,
                                  intermediate_size=3072)
    m = transformers.BertModel(cfg).cuda().eval()
    ids = torch.randint(0, cfg.vocab_size, (8, 256)).cuda()
    return lambda: m(input_ids=ids).last_hidden_state
