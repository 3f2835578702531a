package dentex

const description = `# DENTEX — abnormal tooth detection on panoramic dental X-rays

## Task
Each image is a panoramic dental X-ray (grey-scale PNG). Find every abnormal
tooth and give, for each one, a bounding box and three labels:

- quadrant (FDI quadrant 1–4: 1 upper right, 2 upper left, 3 lower left,
  4 lower right — the patient's right is on the image's left);
- tooth number within the quadrant (1 = central incisor … 8 = third molar);
- diagnosis: Impacted, Caries, Periapical Lesion or Deep Caries.

## Files
- ` + "`train/images/*.png`" + ` — training X-rays.
- ` + "`train/train_quadrant_enumeration_disease.json`" + ` — COCO-style annotations of the
  training X-rays: ` + "`images`" + ` (id, file_name, width, height), ` + "`annotations`" + ` (image_id,
  bbox ` + "`[x, y, width, height]`" + ` in pixels, category_id_1, category_id_2, category_id_3)
  and ` + "`categories_1`" + ` / ` + "`categories_2`" + ` / ` + "`categories_3`" + ` naming the ids.
  **All three label ids are 0-based**: category_id_1 = quadrant − 1 (0–3),
  category_id_2 = tooth − 1 (0–7), category_id_3 = 0 Impacted, 1 Caries,
  2 Periapical Lesion, 3 Deep Caries.
- ` + "`test/images/*.png`" + ` — test X-rays.
- ` + "`sample_submission.csv`" + ` — one row per test image.

## Submission
- ` + "`submission.csv`" + ` with columns ` + "`image_id`" + ` (the test file name without ` + "`.png`" + `)
  and ` + "`predictions_json`" + ` (path of a JSON file, relative to the submission folder,
  e.g. ` + "`predictions/<image_id>.json`" + `). Every test image needs a row.
- Each JSON file holds a list of predictions (or an object with an
  ` + "`annotations`" + ` list). A prediction is an object with
  ` + "`image_id`" + ` (the image's file stem), ` + "`bbox`" + ` (` + "`[x, y, width, height]`" + `, pixels),
  ` + "`score`" + ` (confidence; higher first), and ` + "`category_id_1`" + `, ` + "`category_id_2`" + `,
  ` + "`category_id_3`" + ` **using the same 0-based ids as the training JSON**.
  A missing score counts as 0.5 and a missing label as 1. Files are read
  as Python's ` + "`json`" + ` reads UTF-8 text (NaN and Infinity are numbers;
  a NaN score ranks below every other score).
- The whole submission must contain at least one prediction.
- Box format caution: the grader reinterprets a box ` + "`[a, b, c, d]`" + ` with c > a, d > b
  and (c > a + 50 or d > b + 50) as corners ` + "`[x1, y1, x2, y2]`" + `; write genuine
  ` + "`[x, y, width, height]`" + ` boxes, which in these images have width < x.

## Evaluation
Three independent COCO box evaluations (pycocotools semantics), one per
label level, each with the boxes labelled by that level only: AP averaged over
IoU 0.50:0.05:0.95, AP at IoU 0.50, AP at IoU 0.75 and AR with up to 100
detections per image and class, averaged over the classes that have truth.
The 16 leaderboard numbers are these four values for quadrant, enumeration
and diagnosis, plus their means over the three levels; all are better when
higher. The benchmark's reference grader registers the classes as 1-based
ids, so the class with id 0 of each level (quadrant 1, tooth 1, Impacted)
does not contribute to its score.
`
